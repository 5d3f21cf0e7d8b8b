//===- CodeGen.cpp - LLVM dialect to a loadable shared object -------------===//
//
// In-process: MLIR's LLVM IR translation, LLVM's new pass manager at the
// chosen level, the X86 back end to an object file. Linking uses ld.lld
// (Debian's lld-22, found next to the LLVM tools this build was configured
// with) as a child process on files in a private temporary folder.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/CodeGen.h"

#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/X86TargetParser.h"

#include <mutex>

#ifndef STRATA_LLD_PATH
#error "STRATA_LLD_PATH must name ld.lld"
#endif

namespace strata::cpu {

using namespace mlir;

static void initializeX86() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

bool isKnownCpu(const std::string &cpu) {
  llvm::SmallVector<llvm::StringRef> names;
  llvm::X86::fillValidCPUArchList(names, /*Only64Bit=*/true);
  return llvm::is_contained(names, cpu);
}

static std::unique_ptr<llvm::TargetMachine>
makeTargetMachine(const CodeGenOptions &options, std::string &error) {
  initializeX86();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string cpu = options.cpu;
  std::string features;
  if (cpu.empty()) {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures f;
    for (const auto &[name, on] : llvm::sys::getHostCPUFeatures())
      f.AddFeature(name, on);
    features = f.getString();
  }
  llvm::TargetOptions to;
  auto level = options.optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
               : options.optLevel == 2 ? llvm::CodeGenOptLevel::Default
               : options.optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                       : llvm::CodeGenOptLevel::None;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, cpu, features, to, llvm::Reloc::PIC_, std::nullopt, level));
}

static void optimize(llvm::Module &m, llvm::TargetMachine &tm,
                     unsigned optLevel) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel >= 3   ? llvm::OptimizationLevel::O3
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                  : optLevel == 1 ? llvm::OptimizationLevel::O1
                                                  : llvm::OptimizationLevel::O0;
  llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);
}

FailureOr<std::string> emitSharedObject(ModuleOp module,
                                        const CodeGenOptions &options,
                                        std::string &error) {
  std::unique_ptr<llvm::TargetMachine> tm = makeTargetMachine(options, error);
  if (!tm) {
    error = "code generation: no x86-64 target machine: " + error;
    return failure();
  }
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "strata_dispatches");
  if (!llvmModule) {
    error = "code generation: translating the dispatch module to LLVM IR "
            "failed";
    return failure();
  }
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(tm->getTargetTriple());
  optimize(*llvmModule, *tm, options.optLevel);

  llvm::SmallString<0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr,
                                llvm::CodeGenFileType::ObjectFile)) {
      error = "code generation: the target cannot emit object files";
      return failure();
    }
    pm.run(*llvmModule);
  }

  // Link in a private temporary folder, removed whatever happens.
  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("strata-link", dir)) {
    error =
        "code generation: cannot create a temporary folder: " + ec.message();
    return failure();
  }
  llvm::SmallString<128> objPath(dir), soPath(dir), logPath(dir);
  llvm::sys::path::append(objPath, "dispatches.o");
  llvm::sys::path::append(soPath, "dispatches.so");
  llvm::sys::path::append(logPath, "ld.log");
  llvm::scope_exit cleanup([&] {
    llvm::sys::fs::remove(objPath);
    llvm::sys::fs::remove(soPath);
    llvm::sys::fs::remove(logPath);
    llvm::sys::fs::remove(dir);
  });
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objPath, ec);
    if (ec) {
      error = "code generation: cannot write " + objPath.str().str() + ": " +
              ec.message();
      return failure();
    }
    os << object;
  }
  // libm for the math functions LLVM does not inline, libc for malloc/free
  // of a dispatch's temporary buffers; -z nodelete as LLVM's JIT links.
  llvm::SmallVector<llvm::StringRef> args = {STRATA_LLD_PATH,
                                             "-shared",
                                             "--hash-style=gnu",
                                             "-z",
                                             "noexecstack",
                                             "-o",
                                             soPath,
                                             objPath,
                                             "--as-needed",
                                             "/lib/x86_64-linux-gnu/libm.so.6",
                                             "/lib/x86_64-linux-gnu/libc.so.6"};
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(logPath), llvm::StringRef(logPath)};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(STRATA_LLD_PATH, args, std::nullopt,
                                     redirects, 0, 0, &execError);
  if (rc != 0) {
    std::string log;
    if (auto buf = llvm::MemoryBuffer::getFile(logPath))
      log = (*buf)->getBuffer().str();
    error = "code generation: linking the dispatches with " +
            std::string(STRATA_LLD_PATH) + " failed" +
            (execError.empty() ? "" : ": " + execError) +
            (log.empty() ? "" : ":\n" + log);
    return failure();
  }
  auto so = llvm::MemoryBuffer::getFile(soPath);
  if (!so) {
    error = "code generation: cannot read the linked shared object: " +
            so.getError().message();
    return failure();
  }
  return (*so)->getBuffer().str();
}

} // namespace strata::cpu

//===- Run.cpp - strata run -----------------------------------------------===//
//
// strata run MODEL.strata --input in.npz --output out.npz: loads a compiled
// artifact through the runtime's C++ API (lib/Runtime; no MLIR is involved),
// binds the npz arrays to the inputs by name, runs, and writes every output
// by name. --repeat N times N runs after --warmup runs.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "NpuSimReport.h"
#include "RuntimeUtils.h"

#include "strata/Runtime/Runtime.hpp"
#include "strata/Support/InputFile.h"
#include "strata/Support/Npz.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>

using namespace llvm;

namespace strata::cli {

cl::SubCommand
    RunCommand("run",
               "Run a compiled model (.strata) through the Strata runtime");

static cl::opt<std::string> model(cl::Positional, cl::Required,
                                  cl::desc("<model.strata>"),
                                  cl::sub(RunCommand));
static cl::opt<std::string> inputFile(
    "input",
    cl::desc("npz with one array per model input, keyed by name (may be "
             "omitted for a model without inputs)"),
    cl::value_desc("in.npz"), cl::sub(RunCommand));
static cl::opt<std::string>
    outputFile("output", cl::Required,
               cl::desc("npz to write the outputs to, keyed by name"),
               cl::value_desc("out.npz"), cl::sub(RunCommand));
static cl::opt<int64_t>
    threads("threads",
            cl::desc("threads of the runtime's pool (default 0: one per "
                     "core; 1: the calling thread only; at most 1024)"),
            cl::value_desc("N"), cl::init(0), cl::sub(RunCommand));
static cl::opt<int64_t>
    repeat("repeat",
           cl::desc("run N times and print the latency (min / median / mean)"),
           cl::value_desc("N"), cl::init(1), cl::sub(RunCommand));
static cl::opt<int64_t>
    warmup("warmup",
           cl::desc("untimed runs before the timed ones (with --repeat; "
                    "default 1)"),
           cl::value_desc("N"), cl::init(1), cl::sub(RunCommand));

static cl::opt<std::string> device(
    "device",
    cl::desc("cpu (default) or npu-sim: with npu-sim, print per NPU dispatch "
             "the simulated cycles, MACs, MAC utilization, DMA bytes and LRAM "
             "peak (docs/npu-sim.md)"),
    cl::value_desc("name"), cl::init("cpu"), cl::sub(RunCommand));
static cl::opt<std::string> profile(
    "profile",
    cl::desc("with --device npu-sim: write the Chrome-trace timeline of the "
             "NPU dispatches (chrome://tracing, Perfetto)"),
    cl::value_desc("out.json"), cl::sub(RunCommand));

static constexpr const char *kTool = "strata run";

int run() {
  if (threads < 0 || threads > 1024) {
    errs() << kTool << ": --threads " << threads
           << " must be in [0, 1024] (0: one per core)\n";
    return 2;
  }
  if (repeat < 1 || warmup < 0) {
    errs() << kTool
           << ": --repeat must be at least 1 and --warmup at "
              "least 0\n";
    return 2;
  }
  bool npuSim = device == runtime::npusim::kNpuSimDevice;
  if (device != "cpu" && !npuSim) {
    errs() << kTool << ": --device '" << device
           << "' is not a device (cpu, npu-sim)\n";
    return 2;
  }
  if (!profile.empty() && !npuSim) {
    errs() << kTool << ": --profile needs --device npu-sim\n";
    return 2;
  }
  runtime::npusim::setProfiling(npuSim);
  std::string error;
  {
    // The runtime maps the file itself; this applies the checks every
    // command makes first (a regular file, --max-file-size).
    InputFile probe;
    if (!probe.open(model, "model", error)) {
      errs() << kTool << ": " << error << "\n";
      return 1;
    }
  }
  TensorMap inputs;
  if (!inputFile.empty() && !readNpz(inputFile, inputs, error)) {
    errs() << kTool << ": " << error << "\n";
    return 1;
  }
  try {
    rt::Model m = rt::Model::loadFile(model);
    rt::Session session(m, size_t(threads));
    if (!bindInputs(kTool, m, session, inputs, inputFile))
      return 1;
    bool timed = repeat.getNumOccurrences() > 0;
    int64_t untimed = timed ? warmup : 0;
    for (int64_t i = 0; i < untimed; ++i)
      session.run();
    std::vector<double> ms;
    for (int64_t i = 0; i < repeat; ++i) {
      auto start = std::chrono::steady_clock::now();
      session.run();
      auto end = std::chrono::steady_clock::now();
      ms.push_back(
          std::chrono::duration<double, std::milli>(end - start).count());
    }
    TensorMap outputs;
    if (!collectOutputs(kTool, m, session, outputs))
      return 1;
    if (!writeNpz(outputFile, outputs, error)) {
      errs() << kTool << ": " << error << "\n";
      return 1;
    }
    if (npuSim && !reportNpuSim(kTool, m, inputs,
                                runtime::npusim::takeProfiles(),
                                untimed + repeat, profile))
      return 1;
    if (timed) {
      double mean = 0;
      for (double t : ms)
        mean += t;
      mean /= double(ms.size());
      std::sort(ms.begin(), ms.end());
      size_t n = ms.size();
      double median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
      outs() << "latency over " << n << " runs (" << untimed << " warmup, "
             << session.threadCount()
             << (session.threadCount() == 1 ? " thread" : " threads")
             << "): min " << format("%.4f", ms.front()) << " ms, median "
             << format("%.4f", median) << " ms, mean " << format("%.4f", mean)
             << " ms\n";
    }
  } catch (const rt::Error &e) {
    errs() << kTool << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}

} // namespace strata::cli

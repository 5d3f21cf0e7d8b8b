//===- TuningLogReader.cpp - reading JSON-lines tuning logs ---------------===//

#include "strata/StrategyMLIR/TuningLogReader.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <cmath>

namespace strata::strategy {

static const char *const kFields[] = {"workload",       "target", "machine",
                                      "implementation", "config", "cost"};

/// A JSON value as it appeared, for messages (long values shortened).
static std::string shown(const llvm::json::Value &v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << v;
  if (s.size() > 60)
    s = s.substr(0, 57) + "...";
  return s;
}

/// Reads one record; the error is the part after "line N: ".
static ShapeOr<TuningRecord> parseRecord(llvm::StringRef line) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(line);
  if (!json)
    return ShapeError() << "not valid JSON: "
                        << llvm::toString(json.takeError());
  const llvm::json::Object *obj = json->getAsObject();
  if (!obj)
    return ShapeError() << "a record must be a JSON object, got "
                        << shown(*json);
  for (const auto &entry : *obj) {
    llvm::StringRef key = entry.first;
    if (std::find_if(std::begin(kFields), std::end(kFields),
                     [&](const char *f) { return key == f; }) ==
        std::end(kFields))
      return ShapeError() << "unknown field '" << key.str()
                          << "' (fields: workload, target, machine, "
                             "implementation, config, cost)";
  }
  TuningRecord rec;
  std::string *strings[] = {&rec.workload, &rec.target, &rec.machine,
                            &rec.implementation};
  for (int i = 0; i < 4; ++i) {
    const llvm::json::Value *v = obj->get(kFields[i]);
    if (!v)
      return ShapeError() << "field '" << kFields[i] << "' is missing";
    std::optional<llvm::StringRef> s = v->getAsString();
    if (!s || s->empty())
      return ShapeError() << "field '" << kFields[i]
                          << "' must be a non-empty string, got " << shown(*v);
    *strings[i] = s->str();
  }
  const llvm::json::Value *config = obj->get("config");
  if (!config)
    return ShapeError() << "field 'config' is missing";
  const llvm::json::Object *cfg = config->getAsObject();
  if (!cfg)
    return ShapeError() << "field 'config' must be an object of integers, got "
                        << shown(*config);
  for (const auto &entry : *cfg) {
    std::optional<int64_t> i = entry.second.getAsInteger();
    if (!i)
      return ShapeError() << "field 'config' parameter '" << entry.first.str()
                          << "' must be an integer, got "
                          << shown(entry.second);
    rec.config[entry.first.str()] = *i;
  }
  const llvm::json::Value *cost = obj->get("cost");
  if (!cost)
    return ShapeError() << "field 'cost' is missing";
  std::optional<double> c = cost->getAsNumber();
  if (!c || !std::isfinite(*c) || *c <= 0)
    return ShapeError() << "field 'cost' must be a finite number > 0 "
                           "(seconds), got "
                        << shown(*cost);
  rec.cost = *c;
  return rec;
}

ShapeOr<TuningLog> parseTuningLog(const std::string &text,
                                  const std::string &source) {
  TuningLog log;
  log.source = source;
  llvm::StringRef rest(text);
  unsigned lineNo = 0;
  while (!rest.empty()) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    ++lineNo;
    if (line.trim().empty())
      continue;
    ShapeOr<TuningRecord> rec = parseRecord(line.trim());
    if (!rec)
      return ShapeError() << "tuning log '" << source << "' line " << lineNo
                          << ": " << rec.error();
    rec->line = lineNo;
    log.records.push_back(*rec);
  }
  return log;
}

ShapeOr<TuningLog> readTuningLog(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buf =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return ShapeError() << "cannot read tuning log '" << path
                        << "': " << buf.getError().message();
  return parseTuningLog((*buf)->getBuffer().str(), path);
}

std::string hostMachine() {
  llvm::Triple triple(llvm::sys::getProcessTriple());
  return triple.getArchName().str() + "-" + llvm::sys::getHostCPUName().str();
}

} // namespace strata::strategy

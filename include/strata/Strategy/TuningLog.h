//===- TuningLog.h - measured costs of implementations ----------*- C++ -*-===//
//
// A tuning log is JSON lines, one measurement per line (docs/strategy.md):
//
//   {"workload": "<Workload::key()>", "target": "cpu",
//    "machine": "x86_64-znver3", "implementation": "conv2d.im2col_gemm",
//    "config": {"tile_m": 64, "tile_n": 256}, "cost": 0.00123}
//
// Every field is required, no other field is allowed; `config` maps
// schedule parameter names to integers; `cost` is the measured time of one
// run in seconds (finite, > 0). The reader (StrategyMLIR/TuningLogReader.h)
// rejects a bad line naming the file, the line and the field.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_STRATEGY_TUNINGLOG_H
#define STRATA_STRATEGY_TUNINGLOG_H

#include "strata/Strategy/Implementation.h"

#include <string>
#include <vector>

namespace strata::strategy {

/// One measurement.
struct TuningRecord {
  std::string workload;
  std::string target;
  std::string machine;
  std::string implementation;
  ScheduleParams config;
  double cost = 0;
  /// Where it was read (1-based line; 0 if built in memory).
  unsigned line = 0;
};

/// The records of one log.
struct TuningLog {
  std::string source;
  std::vector<TuningRecord> records;
};

/// The record as one JSON line (no newline), fields in the order above, so
/// `strata tune` appends what the reader accepts.
std::string formatTuningRecord(const TuningRecord &record);

} // namespace strata::strategy

#endif // STRATA_STRATEGY_TUNINGLOG_H

//===- TuningLogReader.h - reading JSON-lines tuning logs -------*- C++ -*-===//
//
// Reads the tuning-log format of strata/Strategy/TuningLog.h, checking every
// field. An error reads "tuning log 'FILE' line N: field 'cost' must be a
// finite number > 0, got \"fast\"".
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_STRATEGYMLIR_TUNINGLOGREADER_H
#define STRATA_STRATEGYMLIR_TUNINGLOGREADER_H

#include "strata/Strategy/TuningLog.h"
#include "strata/Support/ShapeFunction.h"

#include <string>

namespace strata::strategy {

/// Parses `text` (the log's contents; `source` names it in errors). Blank
/// lines are skipped; anything else must be one record.
ShapeOr<TuningLog> parseTuningLog(const std::string &text,
                                  const std::string &source);

/// Reads and parses the file `path`.
ShapeOr<TuningLog> readTuningLog(const std::string &path);

/// The machine string of this host, as tuning records name it:
/// `<arch>-<cpu>`, e.g. `x86_64-znver3`.
std::string hostMachine();

} // namespace strata::strategy

#endif // STRATA_STRATEGYMLIR_TUNINGLOGREADER_H

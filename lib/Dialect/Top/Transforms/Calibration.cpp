//===- Calibration.cpp - activation statistics and calibration tables -----===//
//
// The statistics `strata calibrate` collects and the calibration table text
// format (docs/quantization.md): a header of `#` comment lines, then one line
// per tensor, `name threshold min max`, separated by blanks, and optional
// `@mean name m0 m1 ...` rows (per-channel means, for bias correction) and
// `@range name min0 max0 min1 max1 ...` rows (per-channel ranges of the
// pre-activation tensors, for per-channel activation tables). A
// name holding blanks, `#` or `"`, or starting with `@`, is written in double
// quotes with `\"` and `\\` escapes.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/Transforms/Calibration.h"

#include "strata/Interpreter/Executor.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;

namespace strata::calib {

//===----------------------------------------------------------------------===//
// Table text
//===----------------------------------------------------------------------===//

static bool needsQuotes(llvm::StringRef name) {
  return name.empty() || name.starts_with("@") ||
         name.find_first_of(" \t\"#\\") != llvm::StringRef::npos;
}

static std::string quoteName(llvm::StringRef name) {
  if (!needsQuotes(name))
    return name.str();
  std::string s = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\')
      s += '\\';
    s += c;
  }
  return s + "\"";
}

bool writeCalibrationTable(const std::string &path,
                           const CalibrationTable &table, std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  os << "# Strata calibration table (docs/quantization.md)\n";
  os << "# method " << table.method << "\n";
  os << "# samples " << table.samples << "\n";
  os << "# name threshold min max\n";
  for (const auto &[name, e] : table.entries)
    os << quoteName(name) << " " << llvm::format("%.9g", e.threshold) << " "
       << llvm::format("%.9g", e.min) << " " << llvm::format("%.9g", e.max)
       << "\n";
  for (const auto &[name, means] : table.channelMeans) {
    os << "@mean " << quoteName(name);
    for (double m : means)
      os << " " << llvm::format("%.9g", m);
    os << "\n";
  }
  for (const auto &[name, ranges] : table.channelRanges) {
    os << "@range " << quoteName(name);
    for (auto [lo, hi] : ranges)
      os << " " << llvm::format("%.9g", lo) << " " << llvm::format("%.9g", hi);
    os << "\n";
  }
  for (const std::string &name : table.table16)
    os << "@table16 " << quoteName(name) << "\n";
  os.close();
  if (os.has_error()) {
    error = "cannot write '" + path + "': " + os.error().message();
    os.clear_error();
    return false;
  }
  return true;
}

/// Splits a table line into fields (a quoted name is one field).
static bool splitFields(llvm::StringRef line, std::vector<std::string> &fields,
                        std::string &error) {
  size_t i = 0, n = line.size();
  while (i < n) {
    while (i < n && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    if (i >= n)
      break;
    std::string f;
    if (line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < n) {
        char c = line[i++];
        if (c == '\\' && i < n) {
          f += line[i++];
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          f += c;
        }
      }
      if (!closed) {
        error = "unterminated quoted name";
        return false;
      }
    } else {
      while (i < n && line[i] != ' ' && line[i] != '\t')
        f += line[i++];
    }
    fields.push_back(std::move(f));
  }
  return true;
}

static bool parseNumber(llvm::StringRef s, double &v) {
  if (s.empty())
    return false;
  std::string text = s.str();
  char *end = nullptr;
  v = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

/// An `@range name min0 max0 ...` row (fields `f`) into `table`, or false
/// with `error` naming the line, tensor and channel.
static bool parseRangeRow(const std::vector<std::string> &f,
                          const std::string &where, CalibrationTable &table,
                          std::string &error) {
  if (f.size() < 4 || f.size() % 2 != 0) {
    error = where +
            "expected '@range name min0 max0 min1 max1 ...' (a min "
            "and a max per channel), got " +
            std::to_string(f.size() < 2 ? 0 : f.size() - 2) + " number(s)" +
            (f.size() >= 2 ? " for tensor '" + f[1] + "'" : std::string());
    return false;
  }
  std::vector<std::pair<double, double>> ranges;
  for (size_t k = 2; k + 1 < f.size(); k += 2) {
    size_t c = (k - 2) / 2;
    double v[2];
    for (int j = 0; j < 2; ++j)
      if (!parseNumber(f[k + j], v[j]) || !std::isfinite(v[j])) {
        error = where + "tensor '" + f[1] + "': channel " + std::to_string(c) +
                (j ? " max '" : " min '") + f[k + j] +
                "' is not a finite number";
        return false;
      }
    double lo = v[0], hi = v[1];
    if (lo > hi) {
      error = where + "tensor '" + f[1] + "': channel " + std::to_string(c) +
              " min " + f[k] + " is greater than max " + f[k + 1];
      return false;
    }
    ranges.emplace_back(lo, hi);
  }
  if (!table.channelRanges.emplace(f[1], std::move(ranges)).second) {
    error = where + "tensor '" + f[1] + "' has two @range rows";
    return false;
  }
  return true;
}

bool readCalibrationTable(const std::string &path, CalibrationTable &table,
                          std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = "cannot read calibration table '" + path +
            "': " + buffer.getError().message();
    return false;
  }
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (auto [index, raw] : llvm::enumerate(lines)) {
    std::string where = path + ":" + std::to_string(index + 1) + ": ";
    llvm::StringRef line = raw.trim();
    if (line.empty())
      continue;
    if (line.starts_with("#")) {
      llvm::StringRef rest = line.drop_front().trim();
      if (rest.consume_front("method "))
        table.method = rest.trim().str();
      else if (rest.consume_front("samples "))
        rest.trim().getAsInteger(10, table.samples);
      continue;
    }
    std::vector<std::string> f;
    if (!splitFields(line, f, error)) {
      error = where + error;
      return false;
    }
    if (line.starts_with("@") && !f.empty() && f[0] == "@range") {
      if (!parseRangeRow(f, where, table, error))
        return false;
      continue;
    }
    if (line.starts_with("@") && !f.empty() && f[0] == "@table16") {
      if (f.size() != 2) {
        error = where +
                "expected '@table16 name' (one pre-activation "
                "tensor), got '" +
                line.take_front(40).str() + "'";
        return false;
      }
      if (!table.table16.insert(f[1]).second) {
        error = where + "tensor '" + f[1] + "' has two @table16 rows";
        return false;
      }
      continue;
    }
    if (line.starts_with("@")) {
      if (f[0] != "@mean" || f.size() < 3) {
        error = where +
                "expected '@mean name m0 m1 ...' (one mean per channel), "
                "'@range name min0 max0 min1 max1 ...' (one range per "
                "channel) or '@table16 name', got '" +
                line.take_front(40).str() + "'";
        return false;
      }
      std::vector<double> means;
      for (size_t k = 2; k < f.size(); ++k) {
        double v;
        if (!parseNumber(f[k], v) || !std::isfinite(v)) {
          error = where + "tensor '" + f[1] + "': channel mean " +
                  std::to_string(k - 2) + " '" + f[k] +
                  "' is not a finite number";
          return false;
        }
        means.push_back(v);
      }
      if (!table.channelMeans.emplace(f[1], std::move(means)).second) {
        error = where + "tensor '" + f[1] + "' has two @mean rows";
        return false;
      }
      continue;
    }
    if (f.size() != 4) {
      error = where + "expected 'name threshold min max', got " +
              std::to_string(f.size()) + " field(s)";
      return false;
    }
    CalibrationEntry e;
    double *values[] = {&e.threshold, &e.min, &e.max};
    const char *names[] = {"threshold", "min", "max"};
    for (int k = 0; k < 3; ++k)
      if (!parseNumber(f[k + 1], *values[k]) || !std::isfinite(*values[k])) {
        error = where + "tensor '" + f[0] + "': " + names[k] + " '" + f[k + 1] +
                "' is not a finite number";
        return false;
      }
    if (!(e.threshold > 0)) {
      error = where + "tensor '" + f[0] + "': threshold " + f[1] +
              " must be positive";
      return false;
    }
    if (e.min > e.max) {
      error = where + "tensor '" + f[0] + "': min " + f[2] +
              " is greater than max " + f[3];
      return false;
    }
    if (!table.entries.emplace(f[0], e).second) {
      error = where + "tensor '" + f[0] + "' is listed twice";
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

void TensorStatistics::addRange(const Tensor &t) {
  for (int64_t i = 0; i < t.numElements(); ++i) {
    double v = t.getAsDouble(i);
    if (!std::isfinite(v))
      continue;
    if (!seen) {
      lo = hi = v;
      seen = true;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
}

double TensorStatistics::absMax() const {
  return std::max(std::fabs(lo), std::fabs(hi));
}

void TensorStatistics::addHistogram(const Tensor &t) {
  if (histogram.empty())
    histogram.assign(kBins, 0.0);
  double top = absMax();
  if (!(top > 0))
    return;
  double scale = kBins / top;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    double v = std::fabs(t.getAsDouble(i));
    // Exact zeros (half of a ReLU output) quantize exactly whatever the
    // threshold; counted, they would dominate bin 0 and pull the KL
    // threshold down.
    if (!std::isfinite(v) || v == 0)
      continue;
    int64_t bin = std::min<int64_t>(kBins - 1, static_cast<int64_t>(v * scale));
    histogram[bin] += 1;
  }
}

void ChannelMeans::add(const Tensor &t) {
  int64_t rank = t.rank();
  if (rank < 2)
    return;
  int64_t channels = t.dim(1);
  int64_t inner = 1;
  if (rank > 2)
    for (int64_t d = 2; d < rank; ++d)
      inner *= t.dim(d);
  if (sums.empty())
    sums.assign(channels, 0.0);
  if (static_cast<int64_t>(sums.size()) != channels || t.numElements() == 0)
    return;
  std::vector<double> part(channels, 0.0);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    double v = t.getAsDouble(i);
    if (std::isfinite(v))
      part[(i / inner) % channels] += v;
  }
  for (int64_t c = 0; c < channels; ++c)
    sums[c] += part[c];
  count += static_cast<double>(t.numElements() / channels);
}

std::vector<double> ChannelMeans::means() const {
  std::vector<double> m(sums.size(), 0.0);
  if (count > 0)
    for (size_t c = 0; c < sums.size(); ++c)
      m[c] = sums[c] / count;
  return m;
}

void ChannelRanges::add(const Tensor &t) {
  if (t.rank() < 2 || t.numElements() == 0)
    return;
  int64_t channels = t.dim(1);
  int64_t inner = 1;
  for (int64_t d = 2; d < t.rank(); ++d)
    inner *= t.dim(d);
  if (lo.empty()) {
    lo.assign(channels, 0.0);
    hi.assign(channels, 0.0);
    seen.assign(channels, false);
  }
  if (static_cast<int64_t>(lo.size()) != channels)
    return;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    double v = t.getAsDouble(i);
    if (!std::isfinite(v))
      continue;
    int64_t c = (i / inner) % channels;
    if (!seen[c]) {
      lo[c] = hi[c] = v;
      seen[c] = true;
    }
    lo[c] = std::min(lo[c], v);
    hi[c] = std::max(hi[c], v);
  }
}

std::vector<std::pair<double, double>> ChannelRanges::ranges() const {
  std::vector<std::pair<double, double>> r;
  for (size_t c = 0; c < lo.size(); ++c)
    r.emplace_back(lo[c], hi[c]);
  return r;
}

double klThreshold(llvm::ArrayRef<double> hist, double binWidth) {
  const int levels = 128;
  int n = static_cast<int>(hist.size());
  if (n <= levels)
    return n * binWidth;
  double bestKl = std::numeric_limits<double>::infinity();
  int best = n;
  std::vector<double> p, q;
  for (int i = levels; i <= n; ++i) {
    // P: the first i bins with the outliers folded into the last one.
    p.assign(hist.begin(), hist.begin() + i);
    for (int j = i; j < n; ++j)
      p[i - 1] += hist[j];
    // Q: the first i bins merged into `levels` groups, each group's count
    // spread evenly over its non-empty bins.
    q.assign(i, 0.0);
    double merged = static_cast<double>(i) / levels;
    for (int g = 0; g < levels; ++g) {
      int start = static_cast<int>(g * merged);
      int stop = g == levels - 1 ? i : static_cast<int>((g + 1) * merged);
      double sum = 0;
      int nonZero = 0;
      for (int j = start; j < stop; ++j) {
        sum += hist[j];
        nonZero += hist[j] != 0;
      }
      if (nonZero)
        for (int j = start; j < stop; ++j)
          if (hist[j] != 0)
            q[j] = sum / nonZero;
    }
    double pSum = 0, qSum = 0;
    for (int j = 0; j < i; ++j) {
      pSum += p[j];
      qSum += q[j];
    }
    if (pSum == 0 || qSum == 0)
      continue;
    double kl = 0;
    for (int j = 0; j < i; ++j) {
      if (p[j] == 0)
        continue;
      double pj = p[j] / pSum;
      // An empty Q bin where P has mass: smoothed by a tiny epsilon.
      double qj = q[j] > 0 ? q[j] / qSum : 1e-12;
      kl += pj * std::log(pj / qj);
    }
    if (kl < bestKl) {
      bestKl = kl;
      best = i;
    }
  }
  return (best + 0.5) * binWidth;
}

double TensorStatistics::threshold(llvm::StringRef method,
                                   double percentile) const {
  double top = absMax();
  if (!(top > 0))
    return 1e-8; // an all-zero tensor: any positive threshold
  if (method == "minmax" || histogram.empty())
    return top;
  double width = top / kBins;
  if (method == "kl")
    return std::min(top, klThreshold(histogram, width));
  double total = 0;
  for (double c : histogram)
    total += c;
  double want = total * percentile / 100.0, seenCount = 0;
  for (int b = 0; b < kBins; ++b) {
    seenCount += histogram[b];
    if (seenCount >= want)
      return (b + 1) * width;
  }
  return top;
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

void nameTensors(func::FuncOp func) {
  unsigned k = 0;
  for (Operation &op : func.getBody().front()) {
    ++k;
    if (op.getNumResults() == 0)
      continue;
    Location loc = op.getLoc();
    if (auto fused = dyn_cast<FusedLoc>(loc))
      if (!fused.getLocations().empty())
        loc = fused.getLocations().front();
    if (isa<NameLoc>(loc))
      continue;
    std::string name =
        op.getName().getStringRef().str() + "_" + std::to_string(k);
    op.setLoc(
        NameLoc::get(StringAttr::get(op.getContext(), name), op.getLoc()));
  }
}

std::string tensorName(Value value) { return valueName(value, 0); }

} // namespace strata::calib

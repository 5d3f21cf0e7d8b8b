//===- Registry.h - strategies by (op, target) ------------------*- C++ -*-===//
//
// The strategy registry. A strategy (the seed's OpStrategy) holds an op's
// implementations on one target, grouped in specializations (a condition
// shared by several implementations). Each op has a generic strategy and
// each target may override it (the seed's override_native_generic_func /
// register): the target's strategy starts as a copy of the generic one and
// adds or replaces implementations. A fallback implementation (the codegen
// path) belongs to every op's generic strategy.
//
// Unlike the seed, two implementations with the same priority that could
// both apply are refused when the second is registered: the error names
// both. "Could both apply" means their conditions are not provably disjoint
// (Condition::disjointFrom).
//
// Implementations that need an optional library (oneDNN, ...) are added
// through a LibraryProvider, which registers them only when the library was
// found at build time.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_STRATEGY_REGISTRY_H
#define STRATA_STRATEGY_REGISTRY_H

#include "strata/Strategy/Implementation.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace strata::strategy {

/// No value: it worked; else the error message.
using Error = std::optional<std::string>;

/// Implementations sharing one condition (the seed's OpSpecialization).
struct Specialization {
  Condition condition;
  std::vector<Implementation> implementations;
};

/// An op's implementations on one target.
class Strategy {
public:
  Strategy() = default;
  Strategy(std::string op, std::string target)
      : opName(std::move(op)), targetName(std::move(target)) {}

  const std::string &op() const { return opName; }
  const std::string &target() const { return targetName; }
  const std::vector<Specialization> &specializations() const { return specs; }

  /// Adds `impl` under `specialization` (its effective condition is both).
  /// Errors: a name already used; a priority tie with an implementation
  /// whose condition is not provably disjoint.
  [[nodiscard]] Error add(Implementation impl,
                          const Condition &specialization = {});
  /// Removes the implementation `name` (an override replacing the generic
  /// one); false if there is none.
  bool remove(const std::string &name);
  /// Every implementation with its effective condition, in registration
  /// order.
  std::vector<Implementation> implementations() const;
  /// The implementation `name` with its effective condition.
  std::optional<Implementation> find(const std::string &name) const;

private:
  std::string opName, targetName;
  std::vector<Specialization> specs;
};

/// Strategies by op and target.
class StrategyRegistry {
public:
  /// Adds to the op's generic strategy (every target without an override
  /// of this op sees it; later overrides start from it).
  [[nodiscard]] Error addGeneric(const std::string &op, Implementation impl,
                                 const Condition &specialization = {});
  /// Adds to `target`'s override of the op, created on first use as a copy
  /// of the generic strategy (register the generic implementations first).
  [[nodiscard]] Error addForTarget(const std::string &op,
                                   const std::string &target,
                                   Implementation impl,
                                   const Condition &specialization = {});
  /// `target`'s override of the op (created as above); for remove().
  Strategy &overrideFor(const std::string &op, const std::string &target);
  /// The fallback implementation that every op's generic strategy has
  /// (the codegen path). Must be registered before any other.
  [[nodiscard]] Error setFallback(Implementation impl);

  /// The strategy of `op` on `target`: the target's override, else the
  /// generic one, else one holding only the fallback. Empty (no
  /// implementation) if there is no fallback either.
  Strategy lookup(const std::string &op, const std::string &target) const;

  /// The ops with a generic strategy or an override on some target, sorted.
  std::vector<std::string> ops() const;

  /// Optional libraries whose implementations were not registered because
  /// the library was not found at build time.
  const std::vector<std::string> &missingLibraries() const { return missing; }
  void noteMissingLibrary(const std::string &lib) { missing.push_back(lib); }

private:
  Strategy &generic(const std::string &op);
  std::map<std::string, Strategy> generics;
  std::map<std::pair<std::string, std::string>, Strategy> overrides;
  std::optional<Implementation> fallback;
  std::vector<std::string> missing;
};

/// Implementations that need an optional library.
struct LibraryProvider {
  /// The library's name (`onednn`).
  std::string library;
  /// Whether it was found at build time (libraryFoundAtBuild, or a test's
  /// choice).
  bool available = false;
  /// Registers the implementations (each should name `library`).
  std::function<Error(StrategyRegistry &)> registerImplementations;
};

/// Runs the provider's registration if its library is available, else
/// records the library as missing (explain lists it).
[[nodiscard]] Error registerLibraryProvider(StrategyRegistry &registry,
                                            const LibraryProvider &provider);

/// True if the optional library `name` was found when Strata was built
/// (CMake's strata_optional_library; none is wired in yet).
bool libraryFoundAtBuild(const std::string &name);

} // namespace strata::strategy

#endif // STRATA_STRATEGY_REGISTRY_H

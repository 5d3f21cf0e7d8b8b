//===- Registry.cpp - strategies by (op, target) --------------------------===//

#include "strata/Strategy/Registry.h"
#include "strata/Strategy/OptionalLibraries.h"

#include <algorithm>

namespace strata::strategy {

//===----------------------------------------------------------------------===//
// Strategy
//===----------------------------------------------------------------------===//

static std::string where(const Strategy &s) {
  return s.op() + " on target '" + s.target() + "'";
}

Error Strategy::add(Implementation impl, const Condition &specialization) {
  Condition effective = specialization && impl.condition;
  for (const Implementation &other : implementations()) {
    if (other.name == impl.name)
      return "implementation '" + impl.name + "' of " + where(*this) +
             " is registered twice";
    if (other.priority != impl.priority ||
        effective.disjointFrom(other.condition))
      continue;
    return "implementations '" + other.name + "' (" + other.condition.str() +
           ") and '" + impl.name + "' (" + effective.str() + ") of " +
           where(*this) + " have the same priority " +
           std::to_string(impl.priority) +
           " and could both apply; give them different priorities or "
           "contradicting clauses";
  }
  for (Specialization &s : specs) {
    if (s.condition.str() == specialization.str()) {
      s.implementations.push_back(std::move(impl));
      return std::nullopt;
    }
  }
  specs.push_back({specialization, {std::move(impl)}});
  return std::nullopt;
}

bool Strategy::remove(const std::string &name) {
  for (Specialization &s : specs) {
    auto it =
        std::find_if(s.implementations.begin(), s.implementations.end(),
                     [&](const Implementation &i) { return i.name == name; });
    if (it != s.implementations.end()) {
      s.implementations.erase(it);
      return true;
    }
  }
  return false;
}

std::vector<Implementation> Strategy::implementations() const {
  std::vector<Implementation> all;
  for (const Specialization &s : specs)
    for (Implementation impl : s.implementations) {
      impl.condition = s.condition && impl.condition;
      all.push_back(std::move(impl));
    }
  return all;
}

std::optional<Implementation> Strategy::find(const std::string &name) const {
  for (Implementation &impl : implementations())
    if (impl.name == name)
      return impl;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// StrategyRegistry
//===----------------------------------------------------------------------===//

/// The target name of generic strategies in messages.
static const char *kGenericTarget = "generic";

Strategy &StrategyRegistry::generic(const std::string &op) {
  auto it = generics.find(op);
  if (it != generics.end())
    return it->second;
  Strategy &s =
      generics.emplace(op, Strategy(op, kGenericTarget)).first->second;
  if (fallback)
    (void)s.add(*fallback);
  return s;
}

Error StrategyRegistry::addGeneric(const std::string &op, Implementation impl,
                                   const Condition &specialization) {
  return generic(op).add(std::move(impl), specialization);
}

Strategy &StrategyRegistry::overrideFor(const std::string &op,
                                        const std::string &target) {
  auto key = std::make_pair(op, target);
  auto it = overrides.find(key);
  if (it != overrides.end())
    return it->second;
  Strategy copy = generic(op);
  Strategy s(op, target);
  for (const Specialization &spec : copy.specializations())
    for (const Implementation &impl : spec.implementations)
      (void)s.add(impl, spec.condition);
  return overrides.emplace(key, std::move(s)).first->second;
}

Error StrategyRegistry::addForTarget(const std::string &op,
                                     const std::string &target,
                                     Implementation impl,
                                     const Condition &specialization) {
  return overrideFor(op, target).add(std::move(impl), specialization);
}

Error StrategyRegistry::setFallback(Implementation impl) {
  if (!generics.empty() || !overrides.empty())
    return std::string("the fallback implementation '") + impl.name +
           "' must be registered before any strategy";
  if (!impl.condition.always())
    return std::string("the fallback implementation '") + impl.name +
           "' must always apply, not only when " + impl.condition.str();
  fallback = std::move(impl);
  return std::nullopt;
}

Strategy StrategyRegistry::lookup(const std::string &op,
                                  const std::string &target) const {
  auto it = overrides.find({op, target});
  if (it != overrides.end())
    return it->second;
  auto git = generics.find(op);
  Strategy s(op, target);
  if (git != generics.end()) {
    for (const Specialization &spec : git->second.specializations())
      for (const Implementation &impl : spec.implementations)
        (void)s.add(impl, spec.condition);
  } else if (fallback) {
    (void)s.add(*fallback);
  }
  return s;
}

std::vector<std::string> StrategyRegistry::ops() const {
  std::vector<std::string> names;
  for (const auto &entry : generics)
    names.push_back(entry.first);
  for (const auto &entry : overrides)
    names.push_back(entry.first.first);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

//===----------------------------------------------------------------------===//
// Optional libraries
//===----------------------------------------------------------------------===//

Error registerLibraryProvider(StrategyRegistry &registry,
                              const LibraryProvider &provider) {
  if (!provider.available) {
    registry.noteMissingLibrary(provider.library);
    return std::nullopt;
  }
  return provider.registerImplementations(registry);
}

bool libraryFoundAtBuild(const std::string &name) {
  for (const char *lib : kOptionalLibrariesFound)
    if (lib && name == lib)
      return true;
  return false;
}

} // namespace strata::strategy

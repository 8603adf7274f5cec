// A design-space sweep: the runs a sweep file names (platforms x workloads x parameter grid or
// explicit points), each with a stable id, so that a sweep can be resumed and its results joined
// across machines. Pure expansion; `locsim sweep` runs the plan (apps/sweep.cpp).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace locsim {

struct SweepRun {
  std::string id;  // <platform>-<workload>-<8 hex digits of the assignments' hash>
  std::string platform;
  std::string workload;
  // --set assignments (workload.* included), sorted by key: the run's parameters.
  std::vector<std::pair<std::string, std::string>> sets;
  std::string gpgpusim_config;  // --gpgpusim-config FILE, empty: none
};

struct SweepPlan {
  std::vector<SweepRun> runs;
  std::vector<std::string> parameter_keys;  // every key some run sets, sorted (result columns)
  bool has_gpgpusim_configs = false;        // some run imports a GPGPU-Sim file
};

// More runs than this is a mistake in the file (each run is a process and a few files).
constexpr std::uint64_t kMaxSweepRuns = 1000000;

// Expands a sweep file. Keys: "platforms" (names, required), "workloads" (required: objects with
// "name" and an optional "set" object), "gpgpusim_configs" (GPGPU-Sim files, each imported onto
// every platform: one more dimension), "set" (assignments for every run), "grid" (key -> list of
// values: the cross product) and "points" (a list of assignment objects: explicit
// combinations). With both, every point is combined with every grid combination; with neither,
// each platform x workload runs once. A workload may be given as its bare name. Values are
// strings or numbers; a key given at two levels is an error. Throws ConfigError naming `source`
// and the offending key on any other shape.
SweepPlan expand_sweep(const nlohmann::json& spec, const std::string& source);

// The value as a --set value: strings as they are, integers without a decimal point; anything
// else is a ConfigError "<where>: expected a string or a number".
std::string sweep_value_text(const nlohmann::json& v, const std::string& where);

}  // namespace locsim

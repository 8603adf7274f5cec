#include "model/sweep_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "model/params.h"

namespace locsim {

namespace {

using Assignments = std::map<std::string, std::string>;

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw ConfigError("sweep '" + source + "': " + what);
}

// An object of key -> value assignments ("set", a workload's "set", a point).
Assignments read_assignments(const nlohmann::json& j, const std::string& source,
                             const std::string& where) {
  if (!j.is_object()) fail(source, where + ": expected an object of key: value");
  Assignments a;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key().empty()) fail(source, where + ": empty key");
    a[it.key()] = sweep_value_text(it.value(), "sweep '" + source + "': " + where + "." + it.key());
  }
  return a;
}

// Adds `more` to `into`; a key given at two levels is ambiguous.
void merge(Assignments& into, const Assignments& more, const std::string& source,
           const std::string& where) {
  for (const auto& kv : more)
    if (!into.emplace(kv).second)
      fail(source, "key '" + kv.first + "' is given twice (" + where + " and elsewhere)");
}

std::string hash8(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>((h >> 32) ^ h));
  return buf;
}

bool safe_name(const std::string& n) {
  return !n.empty() && std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

}  // namespace

std::string sweep_value_text(const nlohmann::json& v, const std::string& where) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return v.dump();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15)
      return std::to_string(static_cast<long long>(d));
    return v.dump();
  }
  throw ConfigError(where + ": expected a string or a number");
}

SweepPlan expand_sweep(const nlohmann::json& spec, const std::string& source) {
  if (!spec.is_object()) fail(source, "expected a JSON object");
  static const std::set<std::string> known = {"platforms", "workloads",        "set",
                                              "grid",      "gpgpusim_configs", "points"};
  for (auto it = spec.begin(); it != spec.end(); ++it)
    if (!known.count(it.key()))
      fail(source, "unknown key '" + it.key() +
                       "' (known: platforms, workloads, gpgpusim_configs, set, grid, points)");
  std::vector<std::string> gpgpusim = {""};
  if (spec.contains("gpgpusim_configs")) {
    const auto& g = spec["gpgpusim_configs"];
    if (!g.is_array() || g.empty())
      fail(source, "'gpgpusim_configs': expected a non-empty list of file names");
    gpgpusim.clear();
    for (const auto& f : g) {
      if (!f.is_string() || f.get<std::string>().empty())
        fail(source, "'gpgpusim_configs': expected file names");
      gpgpusim.push_back(f.get<std::string>());
    }
  }

  if (!spec.contains("platforms") || !spec["platforms"].is_array() || spec["platforms"].empty())
    fail(source, "'platforms': expected a non-empty list of platform names");
  std::vector<std::string> platforms;
  for (const auto& p : spec["platforms"]) {
    if (!p.is_string() || !safe_name(p.get<std::string>()))
      fail(source, "'platforms': expected names (letters, digits, '_', '-', '.')");
    platforms.push_back(p.get<std::string>());
  }

  if (!spec.contains("workloads") || !spec["workloads"].is_array() || spec["workloads"].empty())
    fail(source, "'workloads': expected a non-empty list of {\"name\": ..., \"set\": {...}}");
  std::vector<std::pair<std::string, Assignments>> workloads;
  for (std::size_t i = 0; i < spec["workloads"].size(); ++i) {
    nlohmann::json w = spec["workloads"][i];
    const std::string where = "workloads[" + std::to_string(i) + "]";
    if (w.is_string()) w = nlohmann::json{{"name", w}};  // "vecadd" is {"name": "vecadd"}
    if (!w.is_object() || !w.contains("name") || !w["name"].is_string() ||
        !safe_name(w["name"].get<std::string>()))
      fail(source, where + ": expected {\"name\": WORKLOAD, \"set\": {...}}");
    for (auto it = w.begin(); it != w.end(); ++it)
      if (it.key() != "name" && it.key() != "set")
        fail(source, where + ": unknown key '" + it.key() + "' (known: name, set)");
    Assignments a;
    if (w.contains("set")) a = read_assignments(w["set"], source, where + ".set");
    workloads.emplace_back(w["name"].get<std::string>(), std::move(a));
  }

  Assignments common;
  if (spec.contains("set")) common = read_assignments(spec["set"], source, "set");

  // Counted before anything is expanded: a grid of twelve 10-value keys (10^12 runs) used to
  // grow until the host ran out of memory.
  const long double outer =
      static_cast<long double>(platforms.size()) * gpgpusim.size() * workloads.size();
  long double runs = outer;
  auto limit = [&](long double n, const std::string& where) {
    runs *= n;
    if (runs > kMaxSweepRuns)
      fail(source,
           where + ": the sweep would have more than " + std::to_string(kMaxSweepRuns) + " runs");
  };
  if (spec.contains("grid") && spec["grid"].is_object())
    for (auto it = spec["grid"].begin(); it != spec["grid"].end(); ++it)
      if (it.value().is_array()) limit(it.value().size(), "'grid." + it.key() + "'");
  if (spec.contains("points") && spec["points"].is_array())
    limit(spec["points"].size(), "'points'");

  // Grid: the cross product of every key's values, in key order.
  std::vector<Assignments> combos(1);
  if (spec.contains("grid")) {
    const auto& g = spec["grid"];
    if (!g.is_object() || g.empty()) fail(source, "'grid': expected an object of key: [values]");
    for (auto it = g.begin(); it != g.end(); ++it) {
      if (!it.value().is_array() || it.value().empty())
        fail(source, "'grid." + it.key() + "': expected a non-empty list of values");
      std::vector<Assignments> next;
      for (const auto& c : combos)
        for (const auto& v : it.value()) {
          Assignments a = c;
          a[it.key()] = sweep_value_text(v, "sweep '" + source + "': grid." + it.key());
          next.push_back(std::move(a));
        }
      combos = std::move(next);
    }
  }
  if (spec.contains("points")) {
    const auto& pts = spec["points"];
    if (!pts.is_array() || pts.empty())
      fail(source, "'points': expected a non-empty list of {key: value} objects");
    std::vector<Assignments> next;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const Assignments p = read_assignments(pts[i], source, "points[" + std::to_string(i) + "]");
      for (const auto& c : combos) {
        Assignments a = c;
        merge(a, p, source, "points[" + std::to_string(i) + "]");
        next.push_back(std::move(a));
      }
    }
    combos = std::move(next);
  }

  SweepPlan plan;
  std::set<std::string> keys, ids;
  for (const auto& platform : platforms)
    for (const auto& gs : gpgpusim)
      for (const auto& w : workloads)
        for (const auto& c : combos) {
          Assignments a = common;
          merge(a, w.second, source, "workload '" + w.first + "' set");
          merge(a, c, source, "grid/points");
          SweepRun r;
          r.platform = platform;
          r.workload = w.first;
          r.gpgpusim_config = gs;
          // Without a GPGPU-Sim file the id is what it was before the key existed.
          std::string canon =
              platform + '\0' + w.first + (gs.empty() ? "" : '\0' + ("gpgpusim=" + gs));
          for (const auto& kv : a) {
            r.sets.push_back(kv);
            keys.insert(kv.first);
            canon += '\0' + kv.first + '=' + kv.second;
          }
          r.id = platform + "-" + w.first + "-" + hash8(canon);
          if (!ids.insert(r.id).second)
            fail(source, "run " + r.id + " is listed twice (repeated point or workload)");
          plan.runs.push_back(std::move(r));
        }
  plan.parameter_keys.assign(keys.begin(), keys.end());
  plan.has_gpgpusim_configs = !gpgpusim.front().empty();
  return plan;
}

}  // namespace locsim

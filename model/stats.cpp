#include "model/stats.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace locsim {

namespace {
void remember(std::unordered_set<std::string>& seen, const std::string& path,
              const std::string& name) {
  std::string key;
  key.reserve(path.size() + name.size() + 1);
  key.append(path).push_back('\0');
  key.append(name);
  if (!seen.insert(std::move(key)).second)
    throw std::logic_error("statistic '" + path + "." + name + "' registered twice");
}
}  // namespace

Counter& StatRegistry::counter(const std::string& path, const std::string& kind,
                               const std::string& name, const std::string& unit,
                               const std::string& desc) {
  remember(seen_, path, name);
  counter_info_.push_back(StatInfo{path, kind, name, unit, desc});
  counters_.emplace_back();
  return counters_.back();  // std::deque keeps references stable on push_back
}

Distribution& StatRegistry::distribution(const std::string& path, const std::string& kind,
                                         const std::string& name, const std::string& unit,
                                         const std::string& desc) {
  remember(seen_, path, name);
  dist_info_.push_back(StatInfo{path, kind, name, unit, desc});
  dists_.emplace_back();
  return dists_.back();
}

StatSnapshot StatRegistry::snapshot() const {
  StatSnapshot s;
  s.counters.reserve(counters_.size());
  for (const Counter& c : counters_) s.counters.push_back(c.value());
  s.dists.reserve(dists_.size());
  for (const Distribution& d : dists_)
    s.dists.push_back({d.count(), d.sum(), d.min(), d.max(), d.all_min(), d.all_max()});
  return s;
}

void StatRegistry::begin_period() {
  for (Distribution& d : dists_) d.reset_extremes();
}

namespace {
// Value of one counter over [from, to]; counters registered after `from` started at zero.
std::uint64_t delta(const std::vector<std::uint64_t>& from, const std::vector<std::uint64_t>& to,
                    std::size_t i) {
  const std::uint64_t a = i < from.size() ? from[i] : 0;
  return to[i] - a;
}
// Distribution over [from, to]: count and sum are differences. From the start of the run (an
// empty `from`) the extremes are the run's; otherwise those of the period `to` closes
// (begin_period() restarts them at every kernel start, and a kernel's interval is one period).
AggregateStat dist_delta(const StatSnapshot& from, const StatSnapshot& to, std::size_t i) {
  AggregateStat a;
  a.is_distribution = true;
  const bool from_start = i >= from.dists.size();
  const StatSnapshot::Dist z;
  const StatSnapshot::Dist& f = from_start ? z : from.dists[i];
  const StatSnapshot::Dist& t = to.dists[i];
  a.count = t.count - f.count;
  a.sum = t.sum - f.sum;
  a.min = a.count ? (from_start ? t.all_min : t.min) : 0;
  a.max = a.count ? (from_start ? t.all_max : t.max) : 0;
  return a;
}
void merge_dist(AggregateStat& into, const AggregateStat& d) {
  if (!d.count) return;
  into.min = into.count ? std::min(into.min, d.min) : d.min;
  into.max = std::max(into.max, d.max);
  into.count += d.count;
  into.sum += d.sum;
}
}  // namespace

std::vector<AggregateStat> StatRegistry::aggregate(const StatSnapshot& from,
                                                   const StatSnapshot& to) const {
  std::vector<AggregateStat> out;
  // Hashed, not ordered: the rows keep first-seen order either way, and an ordered map's string
  // compares (thousands of instances on an 80-SM platform) cost more than the rest of the report
  // and vary with where the strings sit in memory.
  std::unordered_map<std::string, std::size_t> index;
  index.reserve(counter_info_.size() / 8 + 64);
  std::string key;
  auto slot = [&](const StatInfo& info, bool dist) -> AggregateStat& {
    key.assign(info.kind).push_back('\0');
    key.append(info.name);
    auto [it, fresh] = index.try_emplace(key, out.size());
    if (!fresh) return out[it->second];
    out.push_back(AggregateStat{info.kind, info.name, info.unit, info.desc, dist});
    return out.back();
  };
  for (std::size_t i = 0; i < counter_info_.size() && i < to.counters.size(); ++i)
    slot(counter_info_[i], false).value += delta(from.counters, to.counters, i);
  for (std::size_t i = 0; i < dist_info_.size() && i < to.dists.size(); ++i)
    merge_dist(slot(dist_info_[i], true), dist_delta(from, to, i));
  return out;
}

std::vector<std::pair<StatInfo, AggregateStat>> StatRegistry::per_instance(
    const StatSnapshot& from, const StatSnapshot& to) const {
  std::vector<std::pair<StatInfo, AggregateStat>> out;
  for (std::size_t i = 0; i < counter_info_.size() && i < to.counters.size(); ++i) {
    const StatInfo& s = counter_info_[i];
    AggregateStat a{s.kind, s.name, s.unit, s.desc, false};
    a.value = delta(from.counters, to.counters, i);
    out.emplace_back(s, a);
  }
  for (std::size_t i = 0; i < dist_info_.size() && i < to.dists.size(); ++i) {
    const StatInfo& s = dist_info_[i];
    AggregateStat a = dist_delta(from, to, i);
    a.kind = s.kind;
    a.name = s.name;
    a.unit = s.unit;
    a.desc = s.desc;
    out.emplace_back(s, a);
  }
  return out;
}

std::uint64_t StatRegistry::total(const std::string& kind, const std::string& name) const {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < counter_info_.size(); ++i)
    if (counter_info_[i].kind == kind && counter_info_[i].name == name) sum += counters_[i].value();
  return sum;
}

}  // namespace locsim

// Named, unit-tagged statistics. Each module instance registers its counters under its
// hierarchical name and a kind ("l1d", "l2", "noc", "dram", "sm", ...); reports aggregate a stat
// over all instances of a kind (sum of counters; count/sum/min/max of distributions) and per kernel
// as the difference of two snapshots.
#pragma once
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

namespace locsim {

class Counter {
 public:
  Counter& operator++() {
    ++v_;
    return *this;
  }
  Counter& operator+=(std::uint64_t n) {
    v_ += n;
    return *this;
  }
  std::uint64_t value() const { return v_; }
  void set(std::uint64_t v) { v_ = v; }  // for gauges sampled at report time

 private:
  std::uint64_t v_ = 0;
};

// Streaming distribution of a quantity (latencies, occupancies): count, sum, min, max. Extremes
// are kept twice: for the current reporting period (restarted per kernel) and for the whole run.
class Distribution {
 public:
  void sample(std::uint64_t v) {
    ++count_;
    sum_ += v;
    // The run's extremes bound the period's (all_min_ <= min_, max_ <= all_max_): only a new
    // period extreme can be a new run extreme.
    if (v < min_) {
      min_ = v;
      if (v < all_min_) all_min_ = v;
    }
    if (v > max_) {
      max_ = v;
      if (v > all_max_) all_max_ = v;
    }
  }
  std::uint64_t count() const { return count_; }
  std::uint64_t sum() const { return sum_; }
  // Extremes of the current period (0 when it has no sample).
  // No sample in the period leaves min_ at its sentinel and max_ at 0; any sample makes max_ >=
  // min_, so the pair tells an empty period apart without a count.
  std::uint64_t min() const {
    return min_ == std::numeric_limits<std::uint64_t>::max() && max_ == 0 ? 0 : min_;
  }
  std::uint64_t max() const { return max_; }
  // Extremes over the whole run.
  std::uint64_t all_min() const { return count_ ? all_min_ : 0; }
  std::uint64_t all_max() const { return all_max_; }
  double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }
  void reset_extremes() {
    min_ = std::numeric_limits<std::uint64_t>::max();
    max_ = 0;
  }

 private:
  std::uint64_t count_ = 0, sum_ = 0;
  std::uint64_t min_ = std::numeric_limits<std::uint64_t>::max(), max_ = 0;
  std::uint64_t all_min_ = std::numeric_limits<std::uint64_t>::max(), all_max_ = 0;
};

struct StatInfo {
  std::string path;  // instance path, e.g. "gpu.sm3.l1d"
  std::string kind;  // aggregation group, e.g. "l1d"
  std::string name;  // stat name within the kind, e.g. "hits"
  std::string unit;  // e.g. "accesses", "cycles", "bytes"
  std::string desc;
};

// Values of every stat at one instant (index = registration order).
struct StatSnapshot {
  std::vector<std::uint64_t> counters;
  struct Dist {
    std::uint64_t count = 0, sum = 0, min = 0, max = 0;  // min/max: current period
    std::uint64_t all_min = 0, all_max = 0;              // min/max: whole run
  };
  std::vector<Dist> dists;
};

// One aggregated value: a counter total, or a distribution summary.
struct AggregateStat {
  std::string kind, name, unit, desc;
  bool is_distribution = false;
  std::uint64_t value = 0;                             // counters
  std::uint64_t count = 0, sum = 0, min = 0, max = 0;  // distributions
  double mean() const { return count ? static_cast<double>(sum) / count : 0.0; }
};

class StatRegistry {
 public:
  // Returned references stay valid for the registry's lifetime. Registering the same
  // (path, name) twice throws std::logic_error.
  Counter& counter(const std::string& path, const std::string& kind, const std::string& name,
                   const std::string& unit, const std::string& desc);
  Distribution& distribution(const std::string& path, const std::string& kind,
                             const std::string& name, const std::string& unit,
                             const std::string& desc);

  StatSnapshot snapshot() const;
  // Starts a new reporting period: distribution min/max restart (count/sum stay cumulative).
  void begin_period();

  // Totals per (kind, name), in first-registration order, over the interval [from, to].
  // `from` may be an empty snapshot (= since the start).
  std::vector<AggregateStat> aggregate(const StatSnapshot& from, const StatSnapshot& to) const;
  // Per-instance values over [from, to] as (info, aggregate) rows.
  std::vector<std::pair<StatInfo, AggregateStat>> per_instance(const StatSnapshot& from,
                                                               const StatSnapshot& to) const;

  const std::vector<StatInfo>& counter_infos() const { return counter_info_; }
  const std::vector<StatInfo>& distribution_infos() const { return dist_info_; }
  // Value of an aggregated counter in the current state (sum over instances), 0 if unknown.
  std::uint64_t total(const std::string& kind, const std::string& name) const;

 private:
  std::deque<Counter> counters_;
  std::deque<Distribution> dists_;
  std::vector<StatInfo> counter_info_, dist_info_;
  // "path\0name" of every registered statistic, to refuse duplicates.
  std::unordered_set<std::string> seen_;
};

}  // namespace locsim

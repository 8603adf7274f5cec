#include "model/dyneb.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace locsim {

const char* to_string(DynMetric m) {
  return m == DynMetric::EB ? "eb" : "amat";
}

const char* to_string(DynPhase p) {
  return p == DynPhase::Sampling ? "sampling" : "execution";
}

void DynamicL1Config::validate() const {
  if (sampling_accesses == 0)
    throw std::invalid_argument("DynEB: sampling_accesses (R_S) must be >= 1");
  if (execution_accesses == 0)
    throw std::invalid_argument("DynEB: execution_accesses (R_EX) must be >= 1");
  if (!(l1mr_threshold >= 0.0 && l1mr_threshold <= 1.0))
    throw std::invalid_argument("DynEB: l1mr_threshold must be in [0, 1] (got " +
                                std::to_string(l1mr_threshold) + ")");
}

DynamicL1Selector::DynamicL1Selector(const DynamicL1Config& cfg) : cfg_(cfg) {
  cfg_.validate();
}

void DynamicL1Selector::check_group(unsigned group) {
  if (group > 1)
    throw std::invalid_argument("DynEB: counter group must be 0 (even sets) or 1 (odd sets), got " +
                                std::to_string(group));
}

const DynGroupCounters& DynamicL1Selector::counters(unsigned group) const {
  check_group(group);
  return g_[group];
}

void DynamicL1Selector::on_l1_access(unsigned group, bool miss) {
  check_group(group);
  if (phase_ != DynPhase::Sampling) return;
  ++g_[group].l1_accesses;
  g_[group].l1_misses += miss;
}

void DynamicL1Selector::on_l2_reply(unsigned group) {
  check_group(group);
  if (phase_ == DynPhase::Sampling) ++g_[group].l2_replies;
}

void DynamicL1Selector::on_home_reply(bool missed_at_home) {
  if (phase_ != DynPhase::Sampling) return;
  ++g_[kSharedGroup].home_replies;
  remote_misses_ += missed_at_home;
}

void DynamicL1Selector::on_remote_access() {
  if (phase_ == DynPhase::Sampling) ++remote_accesses_;
}

void DynamicL1Selector::on_latency_sample(DynLatency kind, double cycles) {
  if (phase_ != DynPhase::Sampling) return;
  const auto k = static_cast<unsigned>(kind);
  lat_sum_[k] += cycles;
  ++lat_n_[k];
}

double DynamicL1Selector::mean_latency(DynLatency kind) const {
  const auto k = static_cast<unsigned>(kind);
  if (lat_n_[k]) return lat_sum_[k] / static_cast<double>(lat_n_[k]);
  switch (kind) {
    case DynLatency::L1Hit:
      return cfg_.default_l1_hit_latency;
    case DynLatency::L2Access:
      return cfg_.default_l2_latency;
    case DynLatency::HomeAccess:
      return cfg_.default_home_latency;
  }
  return 0.0;
}

bool DynamicL1Selector::on_local_access(unsigned group, Cycle now) {
  check_group(group);
  if (phase_ == DynPhase::Sampling) {
    ++total_sampling_;
    ++g_[group].local_accesses;
    // R5.4: ends on the access bringing the second group to R_S local accesses.
    if (g_[0].local_accesses < cfg_.sampling_accesses ||
        g_[1].local_accesses < cfg_.sampling_accesses)
      return false;
    DynDecision d = evaluate();
    d.seq = history_.size();
    d.cycle = now;
    history_.push_back(d);
    shared_ = d.shared;
    phase_ = DynPhase::Execution;
    exec_local_ = 0;
    return true;
  }
  ++(shared_ ? total_exec_shared_ : total_exec_private_);
  if (++exec_local_ < cfg_.execution_accesses) return false;
  start_sampling();  // R5.6: exactly R_EX local accesses, then sample again
  return true;
}

void DynamicL1Selector::start_sampling() {
  phase_ = DynPhase::Sampling;
  shared_ = false;
  g_[0] = g_[1] = DynGroupCounters{};
  remote_accesses_ = remote_misses_ = 0;
  for (unsigned k = 0; k < 3; ++k) {
    lat_sum_[k] = 0;
    lat_n_[k] = 0;
  }
  exec_local_ = 0;
}

void DynamicL1Selector::reset_for_kernel() {
  start_sampling();
}

DynDecision DynamicL1Selector::evaluate() const {
  DynDecision d;
  const DynGroupCounters& p = g_[kPrivateGroup];
  const DynGroupCounters& s = g_[kSharedGroup];
  d.private_miss_rate = p.miss_rate();
  d.shared_miss_rate = s.miss_rate();
  if (cfg_.metric == DynMetric::EB) {
    d.private_value = eb(static_cast<double>(p.l2_replies), d.private_miss_rate,
                         static_cast<double>(p.home_replies));
    d.shared_value = eb(static_cast<double>(s.l2_replies), d.shared_miss_rate,
                        static_cast<double>(s.home_replies));
  } else {
    const double hit = mean_latency(DynLatency::L1Hit);
    const double l2 = mean_latency(DynLatency::L2Access);
    const double home = mean_latency(DynLatency::HomeAccess);
    const double remote_mr =
        s.home_replies ? static_cast<double>(remote_misses_) / static_cast<double>(s.home_replies)
                       : 0.0;
    d.private_value =
        amat(hit, l2, home, static_cast<double>(p.local_accesses), 0.0, d.private_miss_rate, 0.0);
    d.shared_value = amat(hit, l2, home, static_cast<double>(s.local_accesses),
                          static_cast<double>(remote_accesses_), d.shared_miss_rate, remote_mr);
  }
  d.shared =
      choose_shared(cfg_, d.private_value, d.shared_value, d.private_miss_rate, &d.by_l1mrpr);
  return d;
}

double DynamicL1Selector::eb(double l2_replies, double miss_rate, double home_replies) {
  if (miss_rate <= 0.0) return std::numeric_limits<double>::infinity();
  return l2_replies / miss_rate + home_replies;
}

double DynamicL1Selector::amat_home(double home_latency, double remote_miss_rate,
                                    double l2_latency) {
  return home_latency + remote_miss_rate * l2_latency;
}

double DynamicL1Selector::amat(double l1_hit_latency, double l2_latency, double home_latency,
                               double local, double remote, double local_miss_rate,
                               double remote_miss_rate) {
  const double total = local + remote;
  const double fl = total > 0 ? local / total : 1.0;
  const double fr = total > 0 ? remote / total : 0.0;
  double a = l1_hit_latency + (fl * local_miss_rate) * l2_latency;
  if (fr > 0) a += fr * amat_home(home_latency, remote_miss_rate, l2_latency);
  return a;
}

bool DynamicL1Selector::choose_shared(const DynamicL1Config& cfg, double private_value,
                                      double shared_value, double private_miss_rate,
                                      bool* by_l1mrpr) {
  // Strict preference: ties (including +inf vs +inf) -> private.
  const bool metric_shared =
      cfg.metric == DynMetric::EB ? shared_value > private_value : shared_value < private_value;
  const bool l1mrpr = cfg.use_l1mrpr && private_miss_rate < cfg.l1mr_threshold;  // §4.2
  if (by_l1mrpr) *by_l1mrpr = metric_shared && l1mrpr;
  return metric_shared && !l1mrpr;
}

}  // namespace locsim

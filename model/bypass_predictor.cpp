#include "model/bypass_predictor.h"

#include <algorithm>
#include <stdexcept>

namespace locsim {

RfEstimateTable::RfEstimateTable(unsigned max_n) : max_n_(max_n) {
  if (max_n_ == 0) throw std::invalid_argument("RF estimate table: max_n must be at least 1");
  table_.resize(std::size_t(max_n_) * max_n_);
  for (unsigned n = 1; n <= max_n_; ++n)
    for (unsigned l = 1; l <= max_n_; ++l) {
      const double r = static_cast<double>(std::min(l, n)) / n;
      table_[std::size_t(n - 1) * max_n_ + (l - 1)] = r * r * r;
    }
}

double RfEstimateTable::ratio_cubed(unsigned l, unsigned n) const {
  if (n == 0) n = 1;
  l = std::min(l, n);
  if (l == 0) return 0.0;
  if (n <= max_n_) return table_[std::size_t(n - 1) * max_n_ + (l - 1)];
  const double r = static_cast<double>(l) / n;
  return r * r * r;
}

BypassPredictor::BypassPredictor(const BypassPredictorConfig& cfg)
    : cfg_(cfg),
      shadow_(cfg.shadow),
      table_(cfg.table_max_n),
      rf_limit_(saturation_limit(cfg.rf_counter_bits)),
      k_(shadow_.max_k()) {
  if (cfg_.decision_interval == 0)
    throw std::invalid_argument("bypass predictor: decision_interval must be at least 1");
  if (cfg_.rf_counter_bits == 0 || cfg_.rf_counter_bits > 64)
    throw std::invalid_argument("bypass predictor: rf_counter_bits must be in 1..64");
  choices_.assign(shadow_.max_k(), 0);
}

bool BypassPredictor::on_access(Addr addr, unsigned rank) {
  shadow_.access(addr, rank);
  // §6: "a new bypassing parameter is produced every 1000 accesses from all warps/TBs on one SM".
  if (++accesses_ % cfg_.decision_interval != 0) return false;
  decide();
  return true;
}

double BypassPredictor::hits_estimate(unsigned k) const {
  return cfg_.hit_scale * static_cast<double>(shadow_.hits(k));
}

double BypassPredictor::rf_estimate(unsigned k) const {
  if (k < 1 || k > max_k()) throw std::out_of_range("bypass predictor: k outside 1..K");
  return table_.estimate(rf_, k, active_);  // §5.2: L = k (clamped to N)
}

double BypassPredictor::adjusted_hits(unsigned k) const {
  return hits_estimate(k) - cfg_.rf_weight * rf_estimate(k);  // §5.3
}

const BypassDecision& BypassPredictor::decide() {
  const unsigned kmax = max_k();
  BypassDecision d;
  d.at_access = accesses_;
  d.active = active_;
  d.rf_base = rf_;
  d.hits.resize(kmax);
  d.rf_est.resize(kmax);
  d.adjusted.resize(kmax);
  unsigned best = 0;
  for (unsigned k = 1; k <= kmax; ++k) {
    d.hits[k - 1] = shadow_.hits(k);
    d.rf_est[k - 1] = rf_estimate(k);
    d.adjusted[k - 1] = adjusted_hits(k);
    // §6 selector: L_max = argmax AdjustedHits; ties per cfg_.tie (see header).
    const bool better =
        best == 0 || d.adjusted[k - 1] > d.adjusted[best - 1] ||
        (cfg_.tie == TieRule::PreferLargerK && d.adjusted[k - 1] == d.adjusted[best - 1]);
    if (better) best = k;
  }
  d.k = best;
  k_ = best;
  ++decisions_;
  ++choices_[best - 1];
  // §6: counters right-shifted by one bit at every new bypassing parameter.
  shadow_.halve();
  rf_ >>= 1;
  if (cfg_.history_limit) {
    history_.push_back(d);
    while (history_.size() > cfg_.history_limit) history_.pop_front();
  }
  last_ = std::move(d);
  return last_;
}

void BypassPredictor::adopt(unsigned k) {
  k_ = std::clamp(k, 1u, max_k());
  ++choices_[k_ - 1];
}

void BypassPredictor::reset() {
  shadow_.reset();
  k_ = max_k();
  rf_ = 0;
  accesses_ = 0;
  decisions_ = 0;
  history_.clear();
  std::fill(choices_.begin(), choices_.end(), 0);
  last_ = BypassDecision();
}

void BypassPredictor::clear_counters() {
  shadow_.reset();
  rf_ = 0;
  // The next decision comes a full interval after the move.
  accesses_ -= accesses_ % cfg_.decision_interval;
}

void GlobalBypassParameter::publish(unsigned k) {
  k_ = std::clamp(k, 1u, max_k_);
  ++version_;
}

void SamplingSmSelector::begin_kernel(std::uint32_t sms, std::uint64_t ctas) {
  resident_.assign(sms, 0);
  ctas_ = ctas;
  launched_ = 0;
  sampler_ = kNone;
}

bool SamplingSmSelector::cta_launched(std::uint32_t sm) {
  if (sm >= resident_.size()) resident_.resize(sm + 1, 0);
  ++resident_[sm];
  ++launched_;
  if (sampler_ != kNone) return false;
  sampler_ = sm;  // rule 1: the first SM to receive a CTA of the kernel
  return true;
}

bool SamplingSmSelector::cta_finished(std::uint32_t sm) {
  if (sm < resident_.size() && resident_[sm]) --resident_[sm];
  if (sm != sampler_ || resident_[sm] || launched_ < ctas_) return false;
  // Rule 2: the sampling SM is idle for the rest of the kernel; the busiest SM takes over.
  std::uint32_t best = kNone;
  for (std::uint32_t s = 0; s < resident_.size(); ++s)
    if (resident_[s] && (best == kNone || resident_[s] > resident_[best])) best = s;
  if (best == kNone) return false;
  sampler_ = best;
  return true;
}

}  // namespace locsim

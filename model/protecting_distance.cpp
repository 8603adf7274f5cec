#include "model/protecting_distance.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

namespace locsim {

ReuseDistanceSampler::ReuseDistanceSampler(std::uint32_t sets, std::uint32_t max_distance,
                                           std::uint32_t sampled_sets)
    : max_distance_(max_distance) {
  if (!sets) throw std::invalid_argument("RD sampler: number of sets must be at least 1");
  if (!max_distance) throw std::invalid_argument("RD sampler: max_distance must be at least 1");
  if (sampled_sets > sets)
    throw std::invalid_argument("RD sampler: " + std::to_string(sampled_sets) +
                                " sampled sets exceed the " + std::to_string(sets) + " sets");
  const std::uint32_t n = sampled_sets ? sampled_sets : sets;
  slot_.assign(sets, -1);
  for (std::uint32_t i = 0; i < n; ++i)
    slot_[static_cast<std::uint32_t>(std::uint64_t{i} * sets / n)] = static_cast<int>(i);
  states_.resize(n);
  hist_.assign(std::size_t(max_distance_) + 1, 0);
}

void ReuseDistanceSampler::observe(std::uint32_t set, Addr line) {
  if (!is_sampled(set)) return;
  SetState& s = states_[static_cast<std::size_t>(slot_[set])];
  ++total_;
  const std::uint64_t now = ++s.now;
  auto it = s.last.find(line);
  if (it != s.last.end()) {
    const std::uint64_t rd = now - it->second;  // set accesses since the last one, this included
    if (rd <= max_distance_) ++hist_[rd];
    it->second = now;
  } else {
    s.last.emplace(line, now);
  }
  // Forget lines not seen for more than d_max accesses (the hardware FIFO's depth).
  if (s.last.size() > 2 * std::size_t(max_distance_) + 16) {
    for (auto i = s.last.begin(); i != s.last.end();)
      i = now - i->second >= max_distance_ ? s.last.erase(i) : std::next(i);
  }
}

void ReuseDistanceSampler::halve() {
  for (auto& h : hist_) h >>= 1;
  total_ >>= 1;
}

void ReuseDistanceSampler::reset() {
  std::fill(hist_.begin(), hist_.end(), 0);
  total_ = 0;
  for (SetState& s : states_) s = SetState();
}

double pdp_hit_rate_model(const std::vector<std::uint64_t>& hist, std::uint64_t total,
                          std::uint32_t dp, std::uint32_t de) {
  double hits = 0, occupancy = 0;
  for (std::uint32_t i = 1; i <= dp && i < hist.size(); ++i) {
    hits += static_cast<double>(hist[i]);
    occupancy += static_cast<double>(hist[i]) * i;
  }
  if (hits <= 0) return 0.0;
  const double others = std::max(0.0, static_cast<double>(total) - hits);
  occupancy += others * (static_cast<double>(dp) + de);
  return occupancy > 0 ? hits / occupancy : 0.0;
}

std::uint32_t pdp_best_distance(const std::vector<std::uint64_t>& hist, std::uint64_t total,
                                std::uint32_t de, std::uint32_t step, std::uint32_t max_distance) {
  if (!step) step = 1;
  std::uint32_t best = 0;
  double best_e = 0.0;
  auto consider = [&](std::uint32_t dp) {
    const double e = pdp_hit_rate_model(hist, total, dp, de);
    if (e > best_e) {  // strict: ties keep the smaller d_p
      best_e = e;
      best = dp;
    }
  };
  for (std::uint32_t dp = step; dp <= max_distance; dp += step) consider(dp);
  if (max_distance % step) consider(max_distance);
  return best;
}

ProtectingDistancePolicy::ProtectingDistancePolicy(const PdpConfig& cfg)
    : cfg_((cfg.geometry.validate(), cfg)),
      sampler_(cfg.geometry.sets, cfg.max_distance, cfg.sampled_sets),
      pd_(cfg.initial_pd) {
  rpd_.assign(std::size_t(cfg_.geometry.sets) * cfg_.geometry.ways, 0);
}

std::uint32_t ProtectingDistancePolicy::eviction_distance() const {
  return cfg_.eviction_distance ? cfg_.eviction_distance : cfg_.geometry.ways;
}

void ProtectingDistancePolicy::on_access(std::uint32_t set, Addr line_addr) {
  for (std::uint32_t w = 0; w < cfg_.geometry.ways; ++w) {
    std::uint32_t& r = rpd_[index(set, static_cast<int>(w))];
    if (r) --r;
  }
  sampler_.observe(set, line_addr);
  if (cfg_.recompute_interval && ++accesses_ % cfg_.recompute_interval == 0) recompute();
}

int ProtectingDistancePolicy::victim(const TagArray& tags, std::uint32_t set) const {
  int best = -1;
  for (std::uint32_t w = 0; w < cfg_.geometry.ways; ++w) {
    const TagLine& l = tags.line(set, static_cast<int>(w));
    if (!l.valid) return static_cast<int>(w);
    if (l.reserved || is_protected(set, static_cast<int>(w))) continue;
    if (best < 0 || l.last_use < tags.line(set, best).last_use) best = static_cast<int>(w);
  }
  return best;
}

std::uint32_t ProtectingDistancePolicy::recompute() {
  pd_ = pdp_best_distance(sampler_.histogram(), sampler_.total(), eviction_distance(),
                          cfg_.distance_step, cfg_.max_distance);
  sampler_.halve();
  ++recomputations_;
  return pd_;
}

void ProtectingDistancePolicy::reset() {
  std::fill(rpd_.begin(), rpd_.end(), 0);
  sampler_.reset();
  pd_ = cfg_.initial_pd;
  accesses_ = 0;
  recomputations_ = 0;
}

PdpCache::PdpCache(const PdpConfig& cfg) : tags_(cfg.geometry), policy_(cfg) {}

PdpOutcome PdpCache::access(Addr addr) {
  const Addr la = tags_.line_addr(addr);
  const std::uint32_t set = tags_.set_index(la);
  const std::uint32_t full = tags_.geometry().full_sector_mask();
  policy_.on_access(set, la);
  Probe p = tags_.probe(la, full);
  if (p.result != ProbeResult::Miss && p.result != ProbeResult::MissNoVictim) {
    tags_.touch(p.set, p.way);
    policy_.protect(p.set, p.way);
    ++hits_;
    return PdpOutcome::Hit;
  }
  const int w = policy_.victim(tags_, set);
  if (w < 0) {
    ++bypasses_;
    return PdpOutcome::Bypass;
  }
  p.way = w;
  p.result = ProbeResult::Miss;
  tags_.allocate(la, p);
  tags_.fill(la, full);
  policy_.protect(set, w);
  ++misses_;
  return PdpOutcome::Miss;
}

}  // namespace locsim

#include "model/shadow_tags.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace locsim {

ShadowTagSampler::ShadowTagSampler(const ShadowTagConfig& cfg)
    : max_k_(cfg.max_k), hit_limit_(saturation_limit(cfg.hit_counter_bits)) {
  cfg.geometry.validate();
  if (max_k_ == 0) throw std::invalid_argument("shadow tags: max_k must be at least 1");
  if (cfg.hit_counter_bits == 0 || cfg.hit_counter_bits > 64)
    throw std::invalid_argument("shadow tags: hit_counter_bits must be in 1..64");
  const std::uint32_t sets = cfg.geometry.sets;
  sampled_.assign(sets, false);
  if (!cfg.set_list.empty()) {
    for (std::uint32_t s : cfg.set_list) {
      if (s >= sets)
        throw std::invalid_argument("shadow tags: sampled set " + std::to_string(s) +
                                    " out of range (sets = " + std::to_string(sets) + ")");
      if (sampled_[s])
        throw std::invalid_argument("shadow tags: sampled set " + std::to_string(s) +
                                    " listed twice");
      sampled_[s] = true;
      sets_.push_back(s);
    }
  } else {
    // §6: 4 of 32 sets (1:8) by default, evenly spaced.
    std::uint32_t n = cfg.sampled_sets ? cfg.sampled_sets : std::max<std::uint32_t>(1, sets / 8);
    if (n > sets)
      throw std::invalid_argument("shadow tags: " + std::to_string(n) +
                                  " sampled sets exceed the " + std::to_string(sets) + " sets");
    for (std::uint32_t i = 0; i < n; ++i) {
      const auto s = static_cast<std::uint32_t>(std::uint64_t{i} * sets / n);
      sampled_[s] = true;
      sets_.push_back(s);
    }
  }
  arrays_.assign(max_k_, TagArray(cfg.geometry));
  hits_.assign(max_k_, 0);
  accesses_.assign(max_k_, 0);
}

std::size_t ShadowTagSampler::index(unsigned k) const {
  if (k < 1 || k > max_k_)
    throw std::out_of_range("shadow tags: k = " + std::to_string(k) + " outside 1.." +
                            std::to_string(max_k_));
  return k - 1;
}

void ShadowTagSampler::access(Addr line_addr, unsigned rank) {
  if (rank >= max_k_) return;
  TagArray& first = arrays_.front();
  const Addr la = first.line_addr(line_addr);
  if (!is_sampled_set(first.set_index(la))) return;
  const std::uint32_t full = first.geometry().full_sector_mask();
  // §6: array k models "the first k warps/TBs access the L1", so rank r feeds arrays r+1..K.
  for (unsigned k = rank + 1; k <= max_k_; ++k) {
    TagArray& t = arrays_[k - 1];
    ++accesses_[k - 1];
    Probe p = t.probe(la, full);
    if (p.result == ProbeResult::Hit) {
      if (hits_[k - 1] < hit_limit_) ++hits_[k - 1];  // saturating (§6: 10-bit counter)
      t.touch(p.set, p.way);
    } else {
      // Shadow lines are never reserved, so a victim always exists; the fill is immediate.
      t.allocate(la, p);
      t.fill(la, full);
    }
  }
}

void ShadowTagSampler::halve() {
  for (auto& h : hits_) h >>= 1;
  for (auto& a : accesses_) a >>= 1;
}

void ShadowTagSampler::reset() {
  for (TagArray& t : arrays_) t.invalidate_all();
  std::fill(hits_.begin(), hits_.end(), 0);
  std::fill(accesses_.begin(), accesses_.end(), 0);
}

}  // namespace locsim

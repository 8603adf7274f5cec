#include "model/cta_policy.h"

#include <algorithm>
#include <stdexcept>

namespace locsim {

void RoundRobinPolicy::begin_kernel(std::uint32_t num_ctas, std::uint32_t, const GpuTopology&) {
  num_ctas_ = num_ctas;
  next_cta_ = 0;
}

void RoundRobinPolicy::select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) {
  if (sms.empty()) return;
  std::vector<std::uint32_t> free(sms.size());
  for (std::size_t i = 0; i < sms.size(); ++i) free[i] = sms[i].free_slots;
  const std::uint32_t n = static_cast<std::uint32_t>(sms.size());
  // Visit SMs round-robin from where the last launch left off, one CTA per visit.
  bool progress = true;
  while (next_cta_ < num_ctas_ && progress) {
    progress = false;
    for (std::uint32_t k = 0; k < n && next_cta_ < num_ctas_; ++k) {
      const std::uint32_t s = (next_sm_ + k) % n;
      if (!free[s]) continue;
      --free[s];
      out.push_back(CtaAssignment{sms[s].sm, next_cta_++});
      next_sm_ = (s + 1) % n;
      progress = true;
      break;
    }
  }
}

std::unique_ptr<CtaSchedulingPolicy> make_cta_policy(const std::string& name) {
  if (name == "rr") return std::make_unique<RoundRobinPolicy>();
  throw std::invalid_argument("unknown CTA policy '" + name + "' (known: rr)");
}

std::vector<std::string> cta_policy_names() {
  return {"rr"};
}

std::uint32_t max_ctas_per_sm(const SmResources& sm, const CtaNeeds& cta, std::string* limiter) {
  const std::uint32_t warps = (cta.threads + 31) / 32;
  const std::uint32_t unit = std::max<std::uint32_t>(1, sm.register_alloc_unit);
  const std::uint32_t regs_per_warp = (cta.regs_per_thread * 32 + unit - 1) / unit * unit;
  const std::uint32_t regs = regs_per_warp * warps;
  struct L {
    const char* name;
    std::uint32_t n;
  };
  const L limits[] = {
      {"threads", cta.threads ? sm.max_threads / cta.threads : sm.max_ctas},
      {"warps", warps ? sm.max_warps / warps : sm.max_ctas},
      {"ctas", sm.max_ctas},
      {"registers", regs ? sm.registers / regs : sm.max_ctas},
      {"shared_memory",
       cta.shared_mem_bytes ? sm.shared_mem_bytes / cta.shared_mem_bytes : sm.max_ctas}};
  const L* best = &limits[0];
  for (const L& l : limits)
    if (l.n < best->n) best = &l;
  if (limiter) *limiter = best->name;
  return best->n;
}

}  // namespace locsim

#include "tlm_components/cta_dispatcher.h"

#include <sstream>

#include "model/params.h"

namespace locsim {

CtaDispatcher::CtaDispatcher(sc_core::sc_module_name name, const DispatcherConfig& cfg,
                             SimContext& ctx)
    : sc_module(name),
      sms("sms"),
      completion("completion"),
      cfg_(cfg),
      ctx_(ctx),
      clk_(ClockDomain::from_hz(cfg.clock_hz)),
      policy_(make_cta_policy(cfg.policy, cfg.policy_args)),
      launched_(ctx.stats.counter(this->name(), "dispatcher", "ctas_launched", "CTAs",
                                  "CTAs handed to SMs")) {
  completion.bind(*this);
  policy_->register_stats(ctx.stats, this->name());
  start_ev_.bind<&CtaDispatcher::start_method>(this, std::string(this->name()) + ".start_method");
  issue_ev_.bind<&CtaDispatcher::issue_method>(this, std::string(this->name()) + ".issue_method");
  start_ev_.notify_at(0);  // kernel 0 starts at time 0
}

void CtaDispatcher::load(const Workload& w) {
  for (const auto& k : w.kernels()) {
    KernelRecord r;
    r.name = k->name();
    r.ctas = k->num_ctas();
    CtaNeeds needs{k->threads_per_cta(), k->regs_per_thread(), k->shared_mem_bytes()};
    r.max_ctas_per_sm = max_ctas_per_sm(cfg_.resources, needs, &r.occupancy_limiter);
    if (r.max_ctas_per_sm == 0)
      throw ConfigError("kernel '" + r.name + "' cannot run: " +
                        cta_does_not_fit(r.occupancy_limiter, needs, cfg_.resources));
    total_ctas_ += r.ctas;
    records_.push_back(r);
    kernels_.push_back(k.get());
  }
}

void CtaDispatcher::launch(const Workload& w) {
  const std::size_t first = kernels_.size();
  load(w);
  if (kernels_.size() == first || !finished_) return;  // queued behind the running kernels
  finished_ = false;
  next_kernel_ = static_cast<std::uint32_t>(first);
  start_ev_.notify_at(clk_.ps_at(clk_.next_edge_cycle() + cfg_.launch_latency));
}

void CtaDispatcher::start_method() {
  if (kernels_.empty() || next_kernel_ >= kernels_.size()) {
    finished_ = true;
    if (!host_driven_) sc_core::sc_stop();
    return;
  }
  // Runs at time 0 for kernel 0 and, for each later kernel, when start_ev_ fires.
  begin_kernel(next_kernel_);
}

void CtaDispatcher::begin_kernel(std::uint32_t k) {
  current_ = k;
  done_in_kernel_ = 0;
  KernelRecord& r = records_[k];
  r.start = clk_.next_edge_cycle();
  max_per_sm_ = r.max_ctas_per_sm;
  if (on_kernel_begin) on_kernel_begin(k, *kernels_[k]);
  access_sets_ = std::make_unique<LazyCtaAccessSets>(*kernels_[k]);
  policy_->begin_kernel(KernelLaunch{*kernels_[k], max_per_sm_, *access_sets_, cfg_.topology});
  issue_ev_.notify_at(clk_.ps_at(r.start));
}

void CtaDispatcher::issue_method() {
  if (finished_ || policy_->remaining() == 0) return;
  const std::uint32_t n = static_cast<std::uint32_t>(sms.size());
  views_.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t res = sms[i]->resident_ctas();
    views_[i] = SmView{i, res < max_per_sm_ ? max_per_sm_ - res : 0};
  }
  picks_.clear();
  policy_->select(views_, picks_);
  for (const CtaAssignment& a : picks_) {
    if (on_cta_launch) on_cta_launch(a.sm, a.cta);
    sms[a.sm]->launch_cta(*kernels_[current_], static_cast<std::uint16_t>(current_), a.cta);
    ++launched_;
  }
}

void CtaDispatcher::cta_done(std::uint32_t sm, std::uint32_t cta) {
  policy_->cta_finished(sm, cta);
  if (on_cta_done) on_cta_done(sm, cta);
  ++completed_ctas_;
  ++ctx_.progress;
  const Cycle now = clk_.next_edge_cycle();
  if (++done_in_kernel_ < records_[current_].ctas) {
    if (policy_->remaining()) issue_ev_.notify_at(clk_.ps_at(now + cfg_.launch_latency));
    return;
  }
  records_[current_].end = now;
  if (on_kernel_end) on_kernel_end(current_, *kernels_[current_]);
  if (current_ + 1 < kernels_.size()) {
    // The next kernel begins (hooks, statistics snapshot, first launches) after the gap plus
    // the launch latency every freed CTA slot sees, through the same path as kernel 0.
    next_kernel_ = current_ + 1;
    start_ev_.notify_at(clk_.ps_at(now + cfg_.kernel_gap + cfg_.launch_latency));
  } else {
    // No sc_stop: the simulation ends when every block is idle, so traffic the last CTA does
    // not wait for (L2 write-backs) drains and the conservation check sees a quiet system.
    finished_ = true;
    if (on_idle) on_idle();
  }
}

Watchdog::Watchdog(sc_core::sc_module_name name, SimContext& ctx, const ClockDomain& clk,
                   std::uint64_t interval_cycles, std::uint64_t limit_cycles,
                   std::function<bool()> finished, std::function<std::string()> describe)
    : sc_module(name),
      ctx_(ctx),
      clk_(clk),
      interval_(interval_cycles ? interval_cycles : 1),
      limit_(limit_cycles),
      finished_(std::move(finished)),
      describe_(std::move(describe)) {
  SC_HAS_PROCESS(Watchdog);
  SC_METHOD(check_method);
  sensitive << rearm_ev_;
  dont_initialize();
}

bool Watchdog::check(Cycle now) {
  if (finished_() || !ctx_.failures.empty()) return false;
  if (on_tick) on_tick(now);
  if (ctx_.progress != last_progress_) {
    last_progress_ = ctx_.progress;
    stalled_ = 0;
  } else {
    stalled_ += interval_;
    if (limit_ && stalled_ >= limit_) {
      std::ostringstream os;
      os << "watchdog: no progress for " << stalled_ << " cycles at cycle " << now
         << "; in flight:\n"
         << describe_();
      ctx_.fail(os.str());
      return false;
    }
  }
  return true;
}

void Watchdog::check_method() {
  if (check(clk_.now())) next_trigger(clk_.period() * static_cast<double>(interval_));
}

}  // namespace locsim

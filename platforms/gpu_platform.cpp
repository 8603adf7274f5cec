#include "platforms/gpu_platform.h"

#include <cstring>
#include <sstream>

namespace locsim {

GpuPlatform::GpuPlatform(sc_core::sc_module_name name, const GpuConfig& cfg)
    : sc_module(name), cfg_(cfg), address_map_(cfg.address_map) {
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
    throw ConfigError("locsim needs SystemC's default 1 ps time resolution");
  ctx_.check_data = cfg.check_data;
  if (cfg.check_data) backing_ = std::make_unique<FunctionalMemory>();

  for (std::uint32_t i = 0; i < cfg.num_sms; ++i) {
    SmConfig sc = cfg.sm;
    sc.id = i;
    sc.cluster = i / cfg.sms_per_cluster;
    std::string n = "sm" + std::to_string(i);
    sms_.push_back(std::make_unique<StreamingMultiprocessor>(n.c_str(), sc, ctx_));
    n = "l1d" + std::to_string(i);
    l1s_.push_back(std::make_unique<L1DataCache>(n.c_str(), cfg.l1, ctx_));
  }
  if (cfg.icc_enabled) {
    for (std::uint32_t c = 0; c < cfg.num_sms / cfg.sms_per_cluster; ++c) {
      IccConfig ic = cfg.icc;
      ic.cluster = c;
      ic.first_sm = c * cfg.sms_per_cluster;
      std::string n = "icc" + std::to_string(c);
      iccs_.push_back(std::make_unique<IntraClusterCoalescer>(n.c_str(), ic, ctx_));
    }
  }
  xbar_ = std::make_unique<Crossbar>("noc", cfg.noc, address_map_, ctx_);
  const std::uint32_t channels = cfg.address_map.channels;
  const std::uint32_t subs = cfg.address_map.subpartitions_per_channel;
  for (std::uint32_t c = 0; c < channels; ++c) {
    MemoryControllerConfig mc = cfg.mc;
    mc.channel = c;
    std::string n = "mc" + std::to_string(c);
    mcs_.push_back(
        std::make_unique<MemoryController>(n.c_str(), mc, address_map_, ctx_, backing_.get()));
    for (std::uint32_t s = 0; s < subs; ++s) {
      n = "l2_" + std::to_string(c * subs + s);
      l2s_.push_back(std::make_unique<L2CacheBank>(n.c_str(), cfg.l2, ctx_));
    }
  }
  dispatcher_ = std::make_unique<CtaDispatcher>("dispatcher", cfg.dispatcher, ctx_);

  // Wiring, in SM / sub-partition order (the crossbar and controllers rely on binding order).
  for (std::uint32_t i = 0; i < cfg.num_sms; ++i) {
    link(sms_[i]->mem, l1s_[i]->cpu, "sm" + std::to_string(i) + "_l1d");
    if (iccs_.empty())
      link(l1s_[i]->mem, xbar_->in, "l1d" + std::to_string(i) + "_noc");
    else
      link(l1s_[i]->mem, iccs_[i / cfg.sms_per_cluster]->cpu, "l1d" + std::to_string(i) + "_icc");
    dispatcher_->sms.bind(sms_[i]->launch);
    sms_[i]->done.bind(dispatcher_->completion);
  }
  for (std::uint32_t c = 0; c < iccs_.size(); ++c)
    link(iccs_[c]->noc, xbar_->in, "icc" + std::to_string(c) + "_noc");
  for (std::uint32_t t = 0; t < l2s_.size(); ++t) {
    link(xbar_->out, l2s_[t]->noc, "noc_l2_" + std::to_string(t));
    link(l2s_[t]->dram, mcs_[t / subs]->in, "l2_" + std::to_string(t) + "_mc");
  }
  wire_bypass_generators();
  dispatcher_->on_kernel_begin = [this](std::uint32_t s, const Kernel& k) { kernel_begin(s, k); };
  dispatcher_->on_kernel_end = [this](std::uint32_t s, const Kernel& k) { kernel_end(s, k); };
  if (cfg.watchdog_cycles)
    watchdog_ = std::make_unique<Watchdog>(
        "watchdog", ctx_, ClockDomain::from_hz(cfg.sm.clock_hz), cfg.watchdog_interval,
        cfg.watchdog_cycles, [this]() { return dispatcher_->finished(); },
        [this]() { return describe_in_flight(); });
  SC_HAS_PROCESS(GpuPlatform);
  SC_METHOD(progress_method);
  sensitive << progress_ev_;
  dont_initialize();
}

GpuPlatform::~GpuPlatform() = default;

void GpuPlatform::wire_bypass_generators() {
  if (!cfg_.bypass_generator) return;
  const std::size_t n = cfg_.bypass_generator == 1 ? sms_.size() : 1;
  for (std::size_t i = 0; i < n; ++i) bpgs_.push_back(std::make_unique<BypassPredictor>(cfg_.mdb));
  const unsigned K = bpgs_.front()->max_k();
  for (unsigned k = 1; k <= K; ++k)
    mdb_choices_.push_back(&ctx_.stats.counter(
        std::string(name()) + ".mdb", "mdb", "chose_k" + std::to_string(k), "decisions",
        "bypassing-parameter decisions letting the first " + std::to_string(k) +
            " warps/CTAs use the L1" + (k == K ? " (no bypassing)" : "")));
  for (std::size_t g = 0; g < n; ++g) {
    // MDB-local: each SM's L1 feeds its own generator; MDB-global: only SM 0's (§6, G-BPG).
    L1DataCache& l1 = *l1s_[g];
    l1.on_load_access = [this, g](Addr line, const GpuExtension& e) {
      BypassPredictor& b = *bpgs_[g];
      b.set_active(e.bypass_population);
      if (b.on_access(line, e.bypass_rank)) apply_bypass_decision(g);
    };
    l1.on_reservation_fail = [this, g](std::uint64_t cycles) {
      bpgs_[g]->on_reservation_failure(cycles);
    };
  }
}

void GpuPlatform::apply_bypass_decision(std::size_t g) {
  const BypassPredictor& b = *bpgs_[g];
  const unsigned k = b.decision();
  ++*mdb_choices_[k - 1];
  // k == K: every unit uses the L1 (§6); otherwise ranks >= k take the bypass path.
  const std::uint32_t limit = k >= b.max_k() ? ~std::uint32_t{0} : k;
  if (cfg_.bypass_generator == 1) {
    l1s_[g]->set_bypass_limit(limit);
  } else {
    // G-BPG: the CTA dispatcher broadcasts SM 0's parameter to every SM (off the critical path).
    for (auto& l1 : l1s_) l1->set_bypass_limit(limit);
  }
}

template <class Init, class Targ>
void GpuPlatform::link(Init& initiator, Targ& target, const std::string& what) {
  if (!cfg_.check_protocol) {
    initiator.bind(target);
    return;
  }
  checkers_.push_back(std::make_unique<ProtocolChecker>(("check_" + what).c_str()));
  initiator.bind(checkers_.back()->target);
  checkers_.back()->initiator.bind(target);
}

void GpuPlatform::load(const Workload& w) {
  dispatcher_->load(w);
}

void GpuPlatform::kernel_begin(std::uint32_t seq, const Kernel& k) {
  ctx_.stats.begin_period();
  KernelStats ks;
  ks.name = k.name();
  ks.start = dispatcher_->clock().next_edge_cycle();
  ks.begin = ctx_.stats.snapshot();
  kernel_stats_.push_back(std::move(ks));
  for (auto& l1 : l1s_) l1->invalidate_all();  // L1s are not coherent across kernels
  for (auto& icc : iccs_) icc->invalidate_all();
  if (ctx_.check_data) ctx_.golden.begin_kernel(seq);
}

void GpuPlatform::kernel_end(std::uint32_t, const Kernel& k) {
  KernelStats& ks = kernel_stats_.back();
  ks.end = dispatcher_->clock().next_edge_cycle();
  ks.finish = ctx_.stats.snapshot();
  if (!ctx_.check_data) return;
  // Every word the kernel wrote must now read back (through L2 and DRAM) as the golden value.
  for (const auto& wv : ctx_.golden.end_kernel()) {
    std::uint8_t b[4];
    sms_[0]->debug_read(wv.first, b, 4);
    std::uint32_t got;
    std::memcpy(&got, b, 4);
    ++verified_words_;
    if (got != wv.second) {
      std::ostringstream os;
      os << "data integrity: after kernel '" << k.name() << "' word 0x" << std::hex << wv.first
         << " holds 0x" << got << ", expected 0x" << wv.second;
      ctx_.fail(os.str());
      return;
    }
  }
}

void GpuPlatform::set_progress(std::function<void(const GpuPlatform&)> cb,
                               std::uint64_t period_cycles) {
  progress_cb_ = std::move(cb);
  progress_period_ = period_cycles;
  if (progress_cb_ && period_cycles)
    progress_ev_.notify(
        cfg_.sm.clock_hz > 0
            ? sc_core::sc_time(1e12 / cfg_.sm.clock_hz * period_cycles, sc_core::SC_PS)
            : sc_core::SC_ZERO_TIME);
}

void GpuPlatform::progress_method() {
  if (dispatcher_->finished() || !progress_cb_) return;
  progress_cb_(*this);
  progress_ev_.notify(sc_core::sc_time(1e12 / cfg_.sm.clock_hz * progress_period_, sc_core::SC_PS));
}

std::uint32_t GpuPlatform::ctas_total() const {
  return dispatcher_->ctas_total();
}
std::uint32_t GpuPlatform::ctas_completed() const {
  return dispatcher_->ctas_completed();
}
Cycle GpuPlatform::now_cycles() const {
  return dispatcher_->clock().now();
}

RunOutcome GpuPlatform::simulate() {
  RunOutcome out;
  const ClockDomain& clk = dispatcher_->clock();
  // The end of a run is reported by us; SystemC's own "stopped by user" note is noise.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  if (cfg_.max_cycles)
    sc_core::sc_start(clk.period() * static_cast<double>(cfg_.max_cycles));
  else
    sc_core::sc_start();
  out.failures = ctx_.failures;
  out.kernels = kernel_stats_;
  out.verified_words = verified_words_;
  out.cycles =
      dispatcher_->finished() && !kernel_stats_.empty() ? kernel_stats_.back().end : clk.now();
  if (out.failures.empty() && !dispatcher_->finished()) {
    if (cfg_.max_cycles && clk.now() >= cfg_.max_cycles) {
      out.truncated = true;
    } else {
      std::ostringstream os;
      os << "simulation ran out of events at cycle " << clk.now() << " with "
         << dispatcher_->ctas_completed() << "/" << dispatcher_->ctas_total()
         << " CTAs completed; in flight:\n"
         << describe_in_flight();
      out.failures.push_back(os.str());
    }
  }
  if (out.failures.empty() && dispatcher_->finished()) {
    // Conservation: every request got exactly one response and every payload came home.
    if (ctx_.pool.in_use() != 0) {
      std::ostringstream os;
      os << ctx_.pool.in_use() << " transaction(s) still in flight after the last CTA finished:\n"
         << describe_in_flight();
      out.failures.push_back(os.str());
    }
    for (auto& c : checkers_) {
      if (c->open_transactions())
        out.failures.push_back(std::string(c->name()) + ": " +
                               std::to_string(c->open_transactions()) + " open transaction(s)");
    }
  }
  out.end = ctx_.stats.snapshot();
  out.ok = out.failures.empty();
  return out;
}

std::string GpuPlatform::describe_in_flight(std::size_t max_lines) const {
  std::ostringstream os;
  auto live = ctx_.pool.live();
  os << "  " << live.size() << " transaction(s) in flight\n";
  std::size_t n = 0;
  for (auto* gp : live) {
    if (n++ == max_lines) {
      os << "  ...\n";
      break;
    }
    const GpuExtension& e = gpu_ext(*gp);
    os << "  #" << e.id << " " << to_string(e.kind) << " 0x" << std::hex << gp->get_address()
       << std::dec << " sm" << e.sm << " warp" << e.warp << " cta" << e.cta << " at " << e.where
       << " since " << e.since << "\n";
  }
  for (auto& sm : sms_) {
    std::string s = sm->describe_state();
    if (!s.empty()) {
      os << s;
      break;  // one SM's warps are usually enough to see the pattern
    }
  }
  return os.str();
}

namespace {
void count_objects(const std::vector<sc_core::sc_object*>& objs, std::size_t& modules,
                   std::size_t& sockets) {
  for (auto* o : objs) {
    if (dynamic_cast<sc_core::sc_module*>(o)) ++modules;
    std::string k = o->kind();
    if (k.find("socket") != std::string::npos) ++sockets;
    count_objects(o->get_child_objects(), modules, sockets);
  }
}
}  // namespace

std::size_t GpuPlatform::module_count() const {
  std::size_t m = 0, s = 0;
  count_objects(sc_core::sc_get_top_level_objects(), m, s);
  return m;
}

std::size_t GpuPlatform::socket_count() const {
  std::size_t m = 0, s = 0;
  count_objects(sc_core::sc_get_top_level_objects(), m, s);
  return s;
}

}  // namespace locsim

#include "platforms/gpu_platform.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include "platforms/topology.h"

namespace locsim {

GpuPlatform::GpuPlatform(sc_core::sc_module_name name, const GpuConfig& cfg)
    : sc_module(name), cfg_(cfg), address_map_(cfg.address_map) {
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
    throw ConfigError("locsim needs SystemC's default 1 ps time resolution");
  ctx_.check_data = cfg.check_data;
  if (cfg.check_data) backing_ = std::make_unique<FunctionalMemory>();
  for (const auto& m : cfg.mechanisms) mechanisms_.push_back(m->instantiate());
  {
    auto topology = make_topology(cfg.topology);
    PlatformBuild build(cfg_, address_map_, ctx_, backing_.get(), parts_, mechanisms_,
                        this->name());
    if (cfg.topology == "mcm") {
      // Seed 000 §4.6: one zone decoder for the whole address space, shared by every block.
      numa_ = std::make_shared<NumaAddressMapper>(cfg.mcm.modules, cfg.address_map.channels,
                                                  cfg.address_map.interleave_bytes);
      address_map_.add_range(0, Addr{1} << 48, numa_, "numa");
      build.numa = numa_.get();
    }
    topology->build(build);
    check_bindings(*this, cfg.topology);
  }
  parts_.dispatcher->on_kernel_begin = [this](std::uint32_t s, const Kernel& k) {
    kernel_begin(s, k);
  };
  parts_.dispatcher->on_kernel_end = [this](std::uint32_t s, const Kernel& k) { kernel_end(s, k); };
  if (!mechanisms_.empty()) {
    parts_.dispatcher->on_cta_launch = [this](std::uint32_t sm, std::uint32_t cta) {
      for (auto& m : mechanisms_) m->cta_launched(sm, cta);
    };
    parts_.dispatcher->on_cta_done = [this](std::uint32_t sm, std::uint32_t cta) {
      for (auto& m : mechanisms_) m->cta_finished(sm, cta);
    };
  }
  if (cfg.watchdog_cycles)
    watchdog_ = std::make_unique<Watchdog>(
        "watchdog", ctx_, ClockDomain::from_hz(cfg.sm.clock_hz), cfg.watchdog_interval,
        cfg.watchdog_cycles, [this]() { return parts_.dispatcher->finished(); },
        [this]() { return describe_in_flight(); });
  if (cfg.order_seed) ActivationScheduler::get().set_order_seed(cfg.order_seed);
}

GpuPlatform::~GpuPlatform() = default;

Mechanism* GpuPlatform::mechanism(const std::string& n) const {
  for (const auto& m : mechanisms_)
    if (n == m->name()) return m.get();
  return nullptr;
}

void GpuPlatform::report(nlohmann::json& extra) const {
  // Per injection port utilisation = flits / (width x NoC cycles) of the run (seed 001's port
  // pressure); in the mcm topology per module network ("module" names it).
  nlohmann::json ports = nlohmann::json::array();
  auto add = [&ports](const Interconnect& x, int module) {
    for (std::uint32_t q = 0; q < x.ports(); ++q) {
      const double nc = static_cast<double>(x.noc_cycles()) * x.port_width(q);
      nlohmann::json j = {{"port", q},
                          {"request_flits", x.port_request_flits(q)},
                          {"reply_flits", x.port_reply_flits(q)},
                          {"request_utilisation", nc > 0 ? x.port_request_flits(q) / nc : 0.0},
                          {"reply_utilisation", nc > 0 ? x.port_reply_flits(q) / nc : 0.0}};
      if (module >= 0) j["module"] = module;
      ports.push_back(std::move(j));
    }
  };
  if (parts_.noc) add(*parts_.noc, -1);
  for (std::size_t m = 0; m < parts_.module_nocs.size(); ++m)
    add(*parts_.module_nocs[m], static_cast<int>(m));
  extra["noc_ports"] = std::move(ports);
  if (!parts_.wires.empty()) {
    // Inter-module wires: utilisation = busy cycles / core cycles of the run.
    const double cycles = static_cast<double>(now_cycles());
    nlohmann::json wires = nlohmann::json::array();
    const std::size_t M = parts_.wires.size() / 2;
    for (std::size_t w = 0; w < parts_.wires.size(); ++w) {
      const SerialChannel& c = *parts_.wires[w];
      const std::size_t from = w % M;
      wires.push_back({{"from", from},
                       {"to", w < M ? (from + 1) % M : (from + M - 1) % M},
                       {"bytes", c.bytes()},
                       {"packets", c.packets()},
                       {"utilisation", cycles > 0 ? c.busy_cycles() / cycles : 0.0}});
    }
    extra["mcm_links"] = std::move(wires);
  }
  for (const auto& m : mechanisms_) m->report(extra);
}

void GpuPlatform::load(const Workload& w) {
  for (auto& m : mechanisms_) m->workload_loaded(w);
  parts_.dispatcher->load(w);
}

void GpuPlatform::kernel_begin(std::uint32_t seq, const Kernel& k) {
  ctx_.stats.begin_period();
  KernelStats ks;
  ks.name = k.name();
  ks.start = parts_.dispatcher->clock().next_edge_cycle();
  ks.begin = ctx_.stats.snapshot();
  kernel_stats_.push_back(std::move(ks));
  for (auto& l1 : parts_.l1s) l1->invalidate_all();  // L1s are not coherent across kernels
  for (auto& m : mechanisms_) m->kernel_begin(seq, k);
  if (ctx_.check_data) ctx_.golden.begin_kernel(seq);
}

void GpuPlatform::kernel_end(std::uint32_t seq, const Kernel& k) {
  // Mechanisms first: what they count at the kernel's end belongs to this kernel.
  for (auto& m : mechanisms_) m->kernel_end(seq, k);
  KernelStats& ks = kernel_stats_.back();
  ks.end = parts_.dispatcher->clock().next_edge_cycle();
  ks.finish = ctx_.stats.snapshot();
  if (!ctx_.check_data) return;
  // Every word the kernel wrote must now read back (through L2 and DRAM) as the golden value.
  auto read_word = [this](Addr a) {
    std::uint8_t b[4];
    parts_.sms[0]->debug_read(a, b, 4);
    std::uint32_t v;
    std::memcpy(&v, b, 4);
    return v;
  };
  std::vector<OrderDependentWord> mixed;
  for (const auto& wv : ctx_.golden.end_kernel(&mixed)) {
    const std::uint32_t got = read_word(wv.first);
    ++verified_words_;
    if (got != wv.second) {
      std::ostringstream os;
      os << "data integrity: after kernel '" << k.name() << "' word 0x" << std::hex << wv.first
         << " holds 0x" << got << ", expected 0x" << wv.second;
      ctx_.fail(os.str());
      return;
    }
  }
  // Words both stored and atomically added to: any order of the two is legal, so the value
  // memory holds must be one some order gives, and becomes the golden value from now on.
  for (const OrderDependentWord& w : mixed) {
    const std::uint32_t got = read_word(w.addr);
    ++verified_words_;
    if (!w.feasible(got, true)) {
      std::ostringstream os;
      os << "data integrity: after kernel '" << k.name() << "' word 0x" << std::hex << w.addr
         << " holds 0x" << got << ", which no order of its stores (0x" << w.stored_value << ") and "
         << std::dec << w.adds << " atomic adds to 0x" << std::hex << w.base << " gives";
      ctx_.fail(os.str());
      return;
    }
    ctx_.golden.commit_word(w.addr, got);
  }
}

void GpuPlatform::set_host_driven(std::function<void()> on_idle) {
  parts_.dispatcher->set_host_driven(true);
  parts_.dispatcher->on_idle = std::move(on_idle);
  // The host runs the kernel (sc_start in its own sc_main), not simulate(): the watchdog checks
  // as a process of its own.
  if (watchdog_) watchdog_->self_timed();
}

void GpuPlatform::launch(const Workload& w) {
  for (auto& m : mechanisms_) m->workload_loaded(w);
  parts_.dispatcher->launch(w);
  if (watchdog_) watchdog_->rearm();
}

std::size_t GpuPlatform::debug_access(Addr a, std::uint8_t* data, std::size_t n, bool write) {
  // The crossbar routes a debug access by its first address, so no piece may cross a line (and
  // with it a channel or sub-partition boundary).
  const Addr line = parts_.l2s.front()->tags().geometry().line_bytes;
  std::size_t done = 0;
  while (done < n) {
    const Addr at = a + done;
    const std::size_t len =
        std::min<std::size_t>(n - done, static_cast<std::size_t>(line - (at & (line - 1))));
    tlm::tlm_generic_payload gp;
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(at);
    gp.set_data_ptr(data + done);
    gp.set_data_length(static_cast<unsigned>(len));
    gp.set_streaming_width(static_cast<unsigned>(len));
    if (parts_.sms.front()->mem->transport_dbg(gp) != len) break;
    done += len;
  }
  if (write && ctx_.check_data) {
    // Later loads are checked against what the host wrote; a partly written word keeps the
    // rest of its bytes as memory holds them.
    for (Addr w = a & ~Addr{3}; w < a + done; w += 4) {
      std::uint8_t b[4];
      debug_access(w, b, 4, false);
      std::uint32_t v;
      std::memcpy(&v, b, 4);
      ctx_.golden.commit_word(w, v);
    }
  }
  return done;
}

bool GpuPlatform::memory_quiet() const {
  return ctx_.pool.in_use() == 0;
}

bool GpuPlatform::l2_holds(Addr a, std::uint64_t bytes) const {
  for (const auto& l2 : parts_.l2s) {
    const TagArray& tags = l2->tags();
    const Addr lb = tags.geometry().line_bytes;
    for (Addr line = a & ~(lb - 1); line < a + bytes; line += lb) {
      const int way = tags.find(line);
      if (way >= 0 && tags.line(tags.set_index(line), way).valid_sectors) return true;
    }
  }
  return false;
}

std::vector<std::string> GpuPlatform::check_quiescent() const {
  std::vector<std::string> out = ctx_.failures;
  if (!out.empty() || !parts_.dispatcher->finished()) return out;
  if (ctx_.pool.in_use() != 0)
    out.push_back(std::to_string(ctx_.pool.in_use()) +
                  " transaction(s) still in flight after the last CTA finished:\n" +
                  describe_in_flight());
  for (const auto& c : parts_.checkers)
    if (c->open_transactions())
      out.push_back(std::string(c->name()) + ": " + std::to_string(c->open_transactions()) +
                    " open transaction(s)");
  return out;
}

bool GpuPlatform::set_progress(std::function<void(const GpuPlatform&)> cb,
                               std::uint64_t period_cycles) {
  if (!watchdog_) return false;
  if (!cb || !period_cycles) {
    watchdog_->on_tick = nullptr;
    return true;
  }
  const std::uint64_t every = std::max<std::uint64_t>(1, period_cycles / watchdog_->interval());
  watchdog_->on_tick = [this, cb = std::move(cb), every, n = std::uint64_t{0}](Cycle) mutable {
    if (n++ % every == 0 && n > 1) cb(*this);  // not at cycle 0: nothing has happened yet
  };
  return true;
}

IntervalSampler::Occupancy GpuPlatform::held_by_block() const {
  IntervalSampler::Occupancy o;
  for (auto* gp : ctx_.pool.live()) o.add(gpu_ext(*gp).where);
  return o;
}

std::uint64_t GpuPlatform::tick_interval() const {
  return watchdog_ ? watchdog_->interval() : 0;
}

std::uint32_t GpuPlatform::ctas_total() const {
  return parts_.dispatcher->ctas_total();
}
std::uint32_t GpuPlatform::ctas_completed() const {
  return parts_.dispatcher->ctas_completed();
}
Cycle GpuPlatform::now_cycles() const {
  return parts_.dispatcher->clock().now();
}

RunOutcome GpuPlatform::simulate() {
  RunOutcome out;
  const ClockDomain& clk = parts_.dispatcher->clock();
  // The end of a run is reported by us; SystemC's own "stopped by user" note is noise.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  const sc_core::sc_time end = cfg_.max_cycles ? clk.period() * static_cast<double>(cfg_.max_cycles)
                                               : sc_core::sc_max_time();
  // The blocks' processes may run ahead of SystemC's kernel up to the end of each sc_start
  // (ActivationScheduler::set_run_ahead_limit): nothing here reads the kernel's time inside one.
  ActivationScheduler& sched = ActivationScheduler::get();
  if (!watchdog_) {
    sched.set_run_ahead_limit(cfg_.max_cycles ? (sc_core::sc_time_stamp() + end).value()
                                              : Activation::kNever);
    if (cfg_.max_cycles)
      sc_core::sc_start(end);
    else
      sc_core::sc_start();
  } else {
    // The watchdog's checks (and the sampler and progress line on them) run between slices of
    // sc_start that end on multiples of its interval: stopping the kernel at a time puts no
    // event in its queue, so the check interval cannot change the results. A slice with no
    // event before its end is not run (sc_start would warn that nothing happened).
    const sc_core::sc_time slice = clk.period() * static_cast<double>(watchdog_->interval());
    sc_core::sc_time next = slice;
    watchdog_->check(0);  // the ticks start at cycle 0, as the self-timed checks do
    for (bool first = true; ctx_.failures.empty(); first = false) {
      if (!first && !sc_core::sc_pending_activity()) break;  // every block idle: the run is over
      const sc_core::sc_time now = sc_core::sc_time_stamp();
      const bool last = next >= end;
      const sc_core::sc_time stop = last ? end : next;
      if (stop > now && (first || now + sc_core::sc_time_to_pending_activity() <= stop)) {
        // The last slice runs to the limit itself, as one sc_start(limit) did.
        sched.set_run_ahead_limit(stop.value());
        sc_core::sc_start(stop - now,
                          last ? sc_core::SC_RUN_TO_TIME : sc_core::SC_EXIT_ON_STARVATION);
        if (!ctx_.failures.empty() || sc_core::sc_get_status() == sc_core::SC_STOPPED) break;
      }
      if (last) break;
      watchdog_->check(static_cast<Cycle>(next / clk.period()));
      next += slice;
    }
  }
  sched.set_run_ahead_limit(0);
  out.failures = ctx_.failures;
  out.kernels = kernel_stats_;
  out.verified_words = verified_words_;
  out.cycles = parts_.dispatcher->finished() && !kernel_stats_.empty() ? kernel_stats_.back().end
                                                                       : clk.now();
  if (out.failures.empty() && !parts_.dispatcher->finished()) {
    if (cfg_.max_cycles && clk.now() >= cfg_.max_cycles) {
      out.truncated = true;
    } else {
      std::ostringstream os;
      os << "simulation ran out of events at cycle " << clk.now() << " with "
         << parts_.dispatcher->ctas_completed() << "/" << parts_.dispatcher->ctas_total()
         << " CTAs completed; in flight:\n"
         << describe_in_flight();
      out.failures.push_back(os.str());
    }
  }
  if (out.failures.empty() && parts_.dispatcher->finished()) {
    // Conservation: every request got exactly one response and every payload came home.
    if (ctx_.pool.in_use() != 0) {
      std::ostringstream os;
      os << ctx_.pool.in_use() << " transaction(s) still in flight after the last CTA finished:\n"
         << describe_in_flight();
      out.failures.push_back(os.str());
    }
    for (auto& c : parts_.checkers) {
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
  // Where they are, most crowded first: a deadlock shows as full buffers at a few blocks.
  std::map<std::string, std::size_t> where;
  for (auto* gp : live) ++where[gpu_ext(*gp).where ? gpu_ext(*gp).where : "?"];
  std::vector<std::pair<std::size_t, std::string>> crowd;
  for (const auto& w : where) crowd.emplace_back(w.second, w.first);
  std::sort(crowd.rbegin(), crowd.rend());
  os << "  by block:";
  for (std::size_t i = 0; i < crowd.size() && i < 12; ++i)
    os << " " << crowd[i].second << " " << crowd[i].first;
  os << (crowd.size() > 12 ? " ...\n" : "\n");
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
  for (auto& sm : parts_.sms) {
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

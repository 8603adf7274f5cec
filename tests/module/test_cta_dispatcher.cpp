// CTA dispatcher and watchdog module tests: one elaboration per TEST_CASE (ctest runs each in its
// own process). The dispatcher drives fake SMs that record launches and complete each CTA a fixed
// time after its launch. The dispatcher clock is 1 GHz, so cycle N starts at N ns.
#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "harness.h"
#include "model/params.h"
#include "model/workload/kernel.h"
#include "tlm_components/cta_dispatcher.h"
#include "tlm_components/l2_cache_bank.h"
#include "tlm_components/protocol_checker.h"

using namespace locsim;
using namespace locsim::test;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

struct EmptyStream : WarpStream {
  bool next(WarpInst&) override { return false; }
};

// A kernel described only by its launch shape and per-CTA resource needs.
struct ShapeKernel : Kernel {
  std::string nm;
  std::uint32_t ctas = 1, threads = 32, regs = 16, smem = 0;
  std::vector<DataStructure> ds;
  std::string name() const override { return nm; }
  Dim3 grid() const override { return Dim3{ctas, 1, 1}; }
  Dim3 block() const override { return Dim3{threads, 1, 1}; }
  std::uint32_t regs_per_thread() const override { return regs; }
  std::uint32_t shared_mem_bytes() const override { return smem; }
  const std::vector<DataStructure>& data() const override { return ds; }
  std::unique_ptr<WarpStream> warp_stream(std::uint32_t, std::uint32_t) const override {
    return std::make_unique<EmptyStream>();
  }
};

struct TestWorkload : Workload {
  std::vector<std::unique_ptr<Kernel>> ks;
  std::string name() const override { return "test"; }
  std::string description() const override { return "test kernels"; }
  const std::vector<std::unique_ptr<Kernel>>& kernels() const override { return ks; }
  ShapeKernel& add(const std::string& nm, std::uint32_t ctas, std::uint32_t threads,
                   std::uint32_t regs = 16, std::uint32_t smem = 0) {
    auto k = std::make_unique<ShapeKernel>();
    k->nm = nm;
    k->ctas = ctas;
    k->threads = threads;
    k->regs = regs;
    k->smem = smem;
    ks.push_back(std::move(k));
    return static_cast<ShapeKernel&>(*ks.back());
  }
};

// Records launches and reports each CTA done `run_time` after its launch.
struct FakeSm : sc_core::sc_module, CtaLaunchIf {
  sc_core::sc_export<CtaLaunchIf> launch;
  sc_core::sc_port<CtaCompletionIf> done;
  struct Launch {
    std::uint16_t kernel;
    std::uint32_t cta;
    sc_time t;
  };
  std::vector<Launch> launches;
  std::uint32_t id;
  sc_time run_time;
  std::uint32_t resident = 0, max_resident = 0;
  std::deque<std::pair<sc_time, std::uint32_t>> running;  // (finish time, cta), in launch order
  sc_core::sc_event ev;

  FakeSm(sc_core::sc_module_name n, std::uint32_t id_, sc_time run)
      : sc_module(n), launch("launch"), done("done"), id(id_), run_time(run) {
    launch.bind(*this);
    SC_HAS_PROCESS(FakeSm);
    SC_METHOD(finish);
    sensitive << ev;
    dont_initialize();
  }
  void launch_cta(const Kernel&, std::uint16_t kernel_seq, std::uint32_t cta) override {
    launches.push_back(Launch{kernel_seq, cta, sc_core::sc_time_stamp()});
    ++resident;
    max_resident = std::max(max_resident, resident);
    running.emplace_back(sc_core::sc_time_stamp() + run_time, cta);
    ev.notify(running.front().first - sc_core::sc_time_stamp());
  }
  std::uint32_t resident_ctas() const override { return resident; }
  void finish() {
    while (!running.empty() && running.front().first <= sc_core::sc_time_stamp()) {
      const std::uint32_t cta = running.front().second;
      running.pop_front();
      --resident;
      done->cta_done(id, cta);
    }
    if (!running.empty()) ev.notify(running.front().first - sc_core::sc_time_stamp());
  }
};

DispatcherConfig dispatcher_config(std::uint32_t sms) {
  DispatcherConfig c;
  c.policy = "rr";
  c.launch_latency = 1;
  c.kernel_gap = 0;
  c.clock_hz = 1e9;
  c.topology.num_sms = sms;
  c.topology.sms_per_cluster = 1;
  c.resources = SmResources();  // 1536 threads, 48 warps, 8 CTAs, 32768 regs, 48 KiB shared
  return c;
}

struct Bench {
  SimContext ctx;
  std::unique_ptr<CtaDispatcher> disp;
  std::vector<std::unique_ptr<FakeSm>> sms;
  struct Hook {
    bool begin;
    std::uint32_t seq;
    sc_time t;
  };
  std::vector<Hook> hooks;
  Bench(const DispatcherConfig& cfg, const std::vector<sc_time>& run_times) {
    disp = std::make_unique<CtaDispatcher>("dispatcher", cfg, ctx);
    for (std::size_t i = 0; i < run_times.size(); ++i) {
      sms.push_back(std::make_unique<FakeSm>(("sm" + std::to_string(i)).c_str(),
                                             static_cast<std::uint32_t>(i), run_times[i]));
      disp->sms.bind(sms.back()->launch);
      sms.back()->done.bind(disp->completion);
    }
    disp->on_kernel_begin = [this](std::uint32_t s, const Kernel&) {
      hooks.push_back(Hook{true, s, sc_core::sc_time_stamp()});
    };
    disp->on_kernel_end = [this](std::uint32_t s, const Kernel&) {
      hooks.push_back(Hook{false, s, sc_core::sc_time_stamp()});
    };
  }
  // Launches of `sm` as (kernel, cta, ns) triples.
  std::vector<std::vector<std::uint64_t>> launches(std::size_t sm) const {
    std::vector<std::vector<std::uint64_t>> out;
    for (const auto& l : sms[sm]->launches) out.push_back({l.kernel, l.cta, l.t.value() / 1000});
    return out;
  }
};

using Rows = std::vector<std::vector<std::uint64_t>>;

}  // namespace

TEST_CASE(
    "Dispatcher: occupancy limits come from the kernel's threads, registers and shared "
    "memory",
    "[module][dispatcher]") {
  Bench b(dispatcher_config(2), {sc_time(100, SC_NS), sc_time(100, SC_NS)});
  TestWorkload w;
  // 256 threads x 32 regs: 8 warps x 1024 regs = 8192 regs per CTA -> 32768 / 8192 = 4 CTAs
  // (threads would allow 6, warps 6, CTA slots 8).
  w.add("regs", 10, 256, 32);
  // 64 threads, 20000 B shared: 49152 / 20000 = 2 CTAs.
  w.add("smem", 6, 64, 16, 20000);
  // 1024 threads: 1536 / 1024 = 1 CTA (warps: 48 / 32 = 1 too; the first limit found wins).
  w.add("threads", 3, 1024);
  b.disp->load(w);
  REQUIRE(b.disp->kernels().size() == 3);
  CHECK(b.disp->kernels()[0].max_ctas_per_sm == 4);
  CHECK(b.disp->kernels()[0].occupancy_limiter == "registers");
  CHECK(b.disp->kernels()[1].max_ctas_per_sm == 2);
  CHECK(b.disp->kernels()[1].occupancy_limiter == "shared_memory");
  CHECK(b.disp->kernels()[2].max_ctas_per_sm == 1);
  CHECK(b.disp->kernels()[2].occupancy_limiter == "threads");
  CHECK(b.disp->ctas_total() == 19);
  sc_core::sc_start(sc_time(10, sc_core::SC_US));
  REQUIRE(b.disp->finished());
  // Kernel 0 (10 CTAs, 4 per SM): at 0 ns rr fills both SMs alternately (0,2,4,6 / 1,3,5,7);
  // they all finish at 100 ns and, one launch latency later (101 ns), 8 and 9 go out.
  // These finish at 201 ns, ending kernel 0; kernel 1's first CTAs launch at 202 ns, 2 per SM,
  // rr continuing from the SM after the last one served (sm1 got CTA 9 -> sm0 first). They finish
  // at 302 ns; CTAs 4 and 5 launch at 303 ns and finish at 403 ns. Kernel 2 (1 CTA per SM):
  // 0 and 1 at 404 ns, 2 at 505 ns on sm0, done at 605 ns.
  CHECK(b.launches(0) == Rows{{0, 0, 0},
                              {0, 2, 0},
                              {0, 4, 0},
                              {0, 6, 0},
                              {0, 8, 101},
                              {1, 0, 202},
                              {1, 2, 202},
                              {1, 4, 303},
                              {2, 0, 404},
                              {2, 2, 505}});
  CHECK(b.launches(1) == Rows{{0, 1, 0},
                              {0, 3, 0},
                              {0, 5, 0},
                              {0, 7, 0},
                              {0, 9, 101},
                              {1, 1, 202},
                              {1, 3, 202},
                              {1, 5, 303},
                              {2, 1, 404}});
  CHECK(b.sms[0]->max_resident == 4);
  CHECK(b.sms[1]->max_resident == 4);
  CHECK(b.disp->kernels()[2].end == 605);  // the last completion
  CHECK(b.disp->ctas_completed() == 19);
  CHECK(b.ctx.stats.total("dispatcher", "ctas_launched") == 19);
  CHECK(b.disp->kernels()[0].start == 0);
  CHECK(b.disp->kernels()[0].end == 201);
  CHECK(b.disp->kernels()[1].end == 403);
  CHECK(b.disp->kernels()[2].end == 605);
}

TEST_CASE("Dispatcher: kernels run in order, with launch latency and kernel gap",
          "[module][dispatcher]") {
  DispatcherConfig cfg = dispatcher_config(1);
  cfg.launch_latency = 5;
  cfg.kernel_gap = 7;
  Bench b(cfg, {sc_time(100, SC_NS)});
  TestWorkload w;
  w.add("first", 3, 1024);  // one CTA at a time
  w.add("second", 2, 1024);
  b.disp->load(w);
  sc_core::sc_start(sc_time(10, sc_core::SC_US));
  REQUIRE(b.disp->finished());
  // Kernel 0: CTA 0 at 0, done 100; a freed slot is refilled launch_latency = 5 cycles later:
  // CTA 1 at 105 (done 205), CTA 2 at 210 (done 310). Kernel 1 begins kernel_gap + launch_latency
  // = 7 + 5 cycles after kernel 0's last completion: its first CTA goes out at 322 (done 422),
  // CTA 1 at 427, done 527.
  CHECK(b.launches(0) == Rows{{0, 0, 0}, {0, 1, 105}, {0, 2, 210}, {1, 0, 322}, {1, 1, 427}});
  CHECK(b.sms[0]->max_resident == 1);
  CHECK(b.disp->kernels()[0].start == 0);
  CHECK(b.disp->kernels()[0].end == 310);
  CHECK(b.disp->kernels()[1].start == 322);
  CHECK(b.disp->kernels()[1].end == 527);
  // Kernel 1's first launch comes after kernel 0's last completion.
  CHECK(b.sms[0]->launches[3].t > sc_time(310, SC_NS));
  // Platform hooks: begin 0 at 0, end 0 at its last completion, begin 1 when kernel 1 begins.
  REQUIRE(b.hooks.size() == 4);
  CHECK((b.hooks[0].begin && b.hooks[0].seq == 0 && b.hooks[0].t == sc_time(0, SC_NS)));
  CHECK((!b.hooks[1].begin && b.hooks[1].seq == 0 && b.hooks[1].t == sc_time(310, SC_NS)));
  CHECK((b.hooks[2].begin && b.hooks[2].seq == 1 && b.hooks[2].t == sc_time(322, SC_NS)));
  CHECK((!b.hooks[3].begin && b.hooks[3].seq == 1 && b.hooks[3].t == sc_time(527, SC_NS)));
  // The dispatcher does not stop the simulation: it ends when the bench's blocks are idle.
  CHECK(b.disp->finished());
}

TEST_CASE("Dispatcher: the rr policy visits SMs round-robin from the last SM served",
          "[module][dispatcher]") {
  // Three SMs, one CTA each at a time, finishing after 40, 100 and 170 ns.
  Bench b(dispatcher_config(3), {sc_time(40, SC_NS), sc_time(100, SC_NS), sc_time(170, SC_NS)});
  TestWorkload w;
  w.add("k", 7, 1024);
  b.disp->load(w);
  sc_core::sc_start(sc_time(10, sc_core::SC_US));
  REQUIRE(b.disp->finished());
  // 0 ns: CTAs 0, 1, 2 on sm0, sm1, sm2 (next: sm0). sm0 frees at 40 -> CTA 3 on sm0 at 41
  // (next: sm1). sm0 frees at 81; sm1 and sm2 are busy, so the search from sm1 wraps to sm0:
  // CTA 4 at 82 (next: sm1). sm1 frees at 100 -> CTA 5 on sm1 at 101 (next: sm2). sm0 frees at
  // 122; sm2 is still busy (until 170) -> CTA 6 on sm0 at 123. Last completion: CTA 5 at 201.
  CHECK(b.launches(0) == Rows{{0, 0, 0}, {0, 3, 41}, {0, 4, 82}, {0, 6, 123}});
  CHECK(b.launches(1) == Rows{{0, 1, 0}, {0, 5, 101}});
  CHECK(b.launches(2) == Rows{{0, 2, 0}});
  CHECK(b.disp->kernels()[0].end == 201);
  CHECK(b.ctx.progress == 7);  // one step per completed CTA
}

TEST_CASE("Dispatcher: a kernel whose CTA cannot fit is rejected at load", "[module][dispatcher]") {
  Bench b(dispatcher_config(1), {sc_time(100, SC_NS)});
  TestWorkload w;
  w.add("fat", 1, 64, 16, 65536);  // more shared memory than an SM has
  try {
    b.disp->load(w);
    FAIL("no exception");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "kernel 'fat' cannot run: one CTA needs 65536 bytes of shared memory, more than "
          "sm.shared_memory (49152)");
  }
}

TEST_CASE("Watchdog: fires after the limit without progress and names the stuck transactions",
          "[module][watchdog]") {
  // A load stuck in an L2 bank whose memory never answers (latency 1 s).
  SimContext ctx;
  L2Config l2cfg;
  l2cfg.geometry.sets = 2;
  l2cfg.geometry.ways = 2;
  l2cfg.geometry.sector_bytes = 32;
  l2cfg.clock_hz = 1e9;
  TestInitiator noc("noc");
  ProtocolChecker c_up("check_up");
  L2CacheBank l2("l2", l2cfg, ctx);
  ProtocolChecker c_down("check_down");
  TestMemory memory("memory", sc_time(1, sc_core::SC_SEC));
  noc.socket.bind(c_up.target);
  c_up.initiator.bind(l2.noc);
  l2.dram.bind(c_down.target);
  c_down.initiator.bind(memory.socket);
  bool finished = false;
  auto describe = [&ctx]() {
    std::string s;
    for (auto* gp : ctx.pool.live()) {
      const GpuExtension& e = gpu_ext(*gp);
      s += "#" + std::to_string(e.id) + " " + to_string(e.kind) + " at " + e.where + " since " +
           e.since.to_string() + "\n";
    }
    return s;
  };
  Watchdog wd(
      "watchdog", ctx, ClockDomain::from_hz(1e9), 100, 300, [&] { return finished; }, describe);
  wd.self_timed();  // no GpuPlatform::simulate() here to call check()
  noc.push(make_load(ctx, 0x1000));
  // Samples at 0, 100, 200, ... ns. Progress moves once at 150 ns, so the stall counted from the
  // sample at 200 ns reaches 300 cycles at the sample at 500 ns.
  sc_core::sc_start(sc_time(150, SC_NS));
  CHECK(ctx.failures.empty());
  ++ctx.progress;
  sc_core::sc_start(sc_time(1000, SC_NS));
  REQUIRE(ctx.failures.size() == 1);
  CHECK(sc_core::sc_time_stamp() == sc_time(500, SC_NS));  // ctx.fail() stopped the run
  const std::string& msg = ctx.failures[0];
  CHECK(msg.find("watchdog: no progress for 300 cycles at cycle 500; in flight:\n") == 0);
  // The load sits in the L2 since its acceptance (ROP stage, then MSHR) and the fill it sent,
  // created at the tag stage after the 120-cycle ROP stage, in the L2 as well (its last holder).
  CHECK(msg.find("#1 load at l2 since 0 s\n") != std::string::npos);
  CHECK(msg.find("#2 load at l2 since 120 ns\n") != std::string::npos);
  CHECK(ctx.pool.in_use() == 2);
}

TEST_CASE("Watchdog: stays quiet once the run has finished", "[module][watchdog]") {
  SimContext ctx;
  bool finished = false;
  int described = 0;
  Watchdog wd(
      "watchdog", ctx, ClockDomain::from_hz(1e9), 10, 30, [&] { return finished; },
      [&] {
        ++described;
        return std::string();
      });
  wd.self_timed();
  sc_core::sc_start(sc_time(25, SC_NS));  // samples at 0, 10, 20: stalled 20 < 30
  CHECK(ctx.failures.empty());
  finished = true;
  sc_core::sc_start(sc_time(1000, SC_NS));
  CHECK(ctx.failures.empty());
  CHECK(described == 0);
  CHECK(sc_core::sc_time_stamp() == sc_time(1025, SC_NS));
}

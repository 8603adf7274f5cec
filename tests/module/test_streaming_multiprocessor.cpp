// Streaming multiprocessor module tests: one elaboration per TEST_CASE (ctest runs each in its own
// process). Bench: hand-written kernel -> SM -> checker -> TestMemory (100 ns), with a CTA
// completion sink. The SM runs at 1 GHz, so cycle N starts at N ns; memory answers 100 ns after a
// request arrives.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness.h"
#include "model/workload/kernel.h"
#include "stimuli/accelsim/accelsim_trace.h"
#include "tlm_components/protocol_checker.h"
#include "tlm_components/streaming_multiprocessor.h"

using namespace locsim;
using namespace locsim::test;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

// Instruction builders. Memory instructions: lane l accesses base + stride * l (4 B each).
WarpInst mem_inst(WarpOp op, Addr base, Addr stride = 4, std::uint32_t mask = 0xffffffffu) {
  WarpInst in;
  in.op = op;
  in.active_mask = mask;
  in.size = 4;
  for (unsigned l = 0; l < 32; ++l) in.addr[l] = base + stride * l;
  return in;
}
WarpInst load(Addr base) {
  return mem_inst(WarpOp::Load, base);
}
WarpInst store(Addr base) {
  return mem_inst(WarpOp::Store, base);
}
WarpInst compute(std::uint16_t count, std::uint16_t latency, std::uint32_t mask = 0xffffffffu) {
  WarpInst in;
  in.op = WarpOp::Compute;
  in.count = count;
  in.latency = latency;
  in.active_mask = mask;
  return in;
}
WarpInst barrier() {
  WarpInst in;
  in.op = WarpOp::Barrier;
  return in;
}
WarpInst exit_inst() {
  WarpInst in;
  in.op = WarpOp::Exit;
  return in;
}

struct VectorStream : WarpStream {
  std::vector<WarpInst> insts;
  std::size_t next_i = 0;
  explicit VectorStream(std::vector<WarpInst> v) : insts(std::move(v)) {}
  bool next(WarpInst& in) override {
    if (next_i >= insts.size()) return false;
    in = insts[next_i++];
    return true;
  }
};

// A kernel whose warps run a scripted instruction list: script(cta, warp).
struct ScriptKernel : Kernel {
  Dim3 grid_dim, block_dim;
  std::function<std::vector<WarpInst>(std::uint32_t, std::uint32_t)> script;
  std::vector<DataStructure> ds;
  std::string name() const override { return "script"; }
  Dim3 grid() const override { return grid_dim; }
  Dim3 block() const override { return block_dim; }
  const std::vector<DataStructure>& data() const override { return ds; }
  std::unique_ptr<WarpStream> warp_stream(std::uint32_t cta, std::uint32_t warp) const override {
    return std::make_unique<VectorStream>(script(cta, warp));
  }
};

ScriptKernel make_kernel(std::uint32_t ctas, std::uint32_t threads,
                         std::function<std::vector<WarpInst>(std::uint32_t, std::uint32_t)> s) {
  ScriptKernel k;
  k.grid_dim.x = ctas;
  k.block_dim.x = threads;
  k.script = std::move(s);
  return k;
}

// Records cta_done calls.
struct CompletionSink : sc_core::sc_module, CtaCompletionIf {
  struct Done {
    std::uint32_t sm, cta;
    sc_time t;
  };
  std::vector<Done> done;
  explicit CompletionSink(sc_core::sc_module_name n) : sc_module(n) {}
  void cta_done(std::uint32_t sm, std::uint32_t cta) override {
    done.push_back(Done{sm, cta, sc_core::sc_time_stamp()});
  }
};

SmConfig sm_config(WarpSchedulerPolicy p = WarpSchedulerPolicy::Gto, std::uint32_t schedulers = 1) {
  SmConfig c;
  c.id = 3;
  c.policy = p;
  c.schedulers = schedulers;
  c.shared_latency = 24;
  c.shared_banks = 32;
  c.clock_hz = 1e9;
  return c;
}

struct SmBench {
  SimContext ctx;
  CompletionSink sink{"sink"};
  std::unique_ptr<StreamingMultiprocessor> sm;
  ProtocolChecker chk{"check_mem"};
  TestMemory memory{"memory", sc_time(100, SC_NS)};
  explicit SmBench(const SmConfig& cfg, bool check_data = false) {
    ctx.check_data = check_data;
    sm = std::make_unique<StreamingMultiprocessor>("sm", cfg, ctx);
    sm->mem.bind(chk.target);
    chk.initiator.bind(memory.socket);
    sm->done.bind(sink);
  }
  std::uint64_t stat(const char* n) { return ctx.stats.total("sm", n); }
  const AggregateStat* dist(const char* n) {
    static std::vector<AggregateStat> agg;
    agg = ctx.stats.aggregate(StatSnapshot(), ctx.stats.snapshot());
    for (const AggregateStat& a : agg)
      if (a.kind == "sm" && a.name == n) return &a;
    return nullptr;
  }
  void quiescent() {
    CHECK(chk.open_transactions() == 0);
    CHECK(ctx.pool.in_use() == 0);
    CHECK(sm->resident_ctas() == 0);
    CHECK(ctx.failures.empty());
  }
};

}  // namespace

TEST_CASE("SM: a load blocks its warp until the response arrives, stores do not block",
          "[module][sm]") {
  SmBench b(sm_config());
  ScriptKernel k = make_kernel(1, 32, [](std::uint32_t, std::uint32_t) {
    return std::vector<WarpInst>{load(0x1000), load(0x2000), store(0x3000), store(0x4000),
                                 exit_inst()};
  });
  b.sm->launch_cta(k, 0, 0);
  CHECK(b.sm->resident_ctas() == 1);
  sc_core::sc_start(sc_time(1000, SC_NS));
  // Launched at 0: the warp is ready at cycle 1 and loads 0x1000 (at memory at 1 ns). The response
  // arrives at 101 ns and the warp issues again the cycle after: the second load at 102 ns, its
  // response at 202 ns, so the first store at 203 ns. The second store does not wait for the
  // first: 204 ns. Exit at 205; the CTA completes with the last store's response at 304 ns.
  REQUIRE(b.memory.request_times.size() == 4);
  CHECK(b.memory.request_times[0] == sc_time(1, SC_NS));
  CHECK(b.memory.request_times[1] == sc_time(102, SC_NS));
  CHECK(b.memory.request_times[2] == sc_time(203, SC_NS));
  CHECK(b.memory.request_times[3] == sc_time(204, SC_NS));
  CHECK(b.memory.addresses == std::vector<Addr>{0x1000, 0x2000, 0x3000, 0x4000});
  REQUIRE(b.sink.done.size() == 1);
  CHECK(b.sink.done[0].sm == 3);
  CHECK(b.sink.done[0].cta == 0);
  CHECK(b.sink.done[0].t == sc_time(304, SC_NS));
  CHECK(b.stat("warp_insts") == 5);
  CHECK(b.stat("thread_insts") == 5 * 32);
  CHECK(b.stat("issue_cycles") == 5);
  CHECK(b.stat("global_mem_insts") == 4);
  CHECK(b.stat("line_requests") == 4);  // 32 lanes x 4 B contiguous: one 128 B line each
  CHECK(b.stat("ctas_completed") == 1);
  const AggregateStat* lat = b.dist("load_latency");
  REQUIRE(lat);
  CHECK(lat->count == 2);     // loads only
  CHECK(lat->min == 100000);  // ps: issue to response
  CHECK(lat->max == 100000);
  b.quiescent();
}

TEST_CASE("SM: a barrier holds the CTA's warps until the last one arrives", "[module][sm]") {
  SmBench b(sm_config());  // one GTO scheduler
  ScriptKernel k = make_kernel(1, 64, [](std::uint32_t, std::uint32_t w) {
    if (w == 0) return std::vector<WarpInst>{compute(1, 50), barrier(), store(0x1000), exit_inst()};
    return std::vector<WarpInst>{barrier(), store(0x2000), exit_inst()};
  });
  b.sm->launch_cta(k, 0, 7);
  sc_core::sc_start(sc_time(1000, SC_NS));
  // Cycle 1: warp 0 computes (ready again at 1 + 50 = 51). Cycle 2: warp 1 reaches the barrier
  // and waits. Cycle 51: warp 0 arrives, the barrier opens; warp 0 is ready at 52. GTO keeps
  // warp 0: store at 52, exit at 53; then warp 1 (waiting since cycle 2) stores at 54.
  REQUIRE(b.memory.request_times.size() == 2);
  CHECK(b.memory.addresses == std::vector<Addr>{0x1000, 0x2000});
  CHECK(b.memory.request_times[0] == sc_time(52, SC_NS));
  CHECK(b.memory.request_times[1] == sc_time(54, SC_NS));
  REQUIRE(b.sink.done.size() == 1);
  CHECK(b.sink.done[0].cta == 7);
  CHECK(b.sink.done[0].t == sc_time(154, SC_NS));  // last store's response
  CHECK(b.stat("warp_insts") == 7);
  b.quiescent();
}

TEST_CASE("SM: GTO keeps issuing the same warp", "[module][sm]") {
  SmBench b(sm_config(WarpSchedulerPolicy::Gto));
  ScriptKernel k = make_kernel(1, 96, [](std::uint32_t, std::uint32_t w) {
    const Addr base = 0x10000 * (w + 1);
    return std::vector<WarpInst>{store(base), store(base + 0x80), store(base + 0x100), exit_inst()};
  });
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
  // Stores do not block, so the oldest warp runs to its exit before the next one starts:
  // warp 0 stores at 1, 2, 3 and exits at 4; warp 1 at 5, 6, 7 (exit 8); warp 2 at 9, 10, 11.
  const std::vector<Addr> expect{0x10000, 0x10080, 0x10100, 0x20000, 0x20080,
                                 0x20100, 0x30000, 0x30080, 0x30100};
  CHECK(b.memory.addresses == expect);
  REQUIRE(b.memory.request_times.size() == 9);
  const int t[] = {1, 2, 3, 5, 6, 7, 9, 10, 11};
  for (int i = 0; i < 9; ++i) CHECK(b.memory.request_times[i] == sc_time(t[i], SC_NS));
  REQUIRE(b.sink.done.size() == 1);
  CHECK(b.sink.done[0].t == sc_time(111, SC_NS));
  b.quiescent();
}

TEST_CASE("SM: loose round-robin rotates over the ready warps", "[module][sm]") {
  SmBench b(sm_config(WarpSchedulerPolicy::Lrr));
  ScriptKernel k = make_kernel(1, 96, [](std::uint32_t, std::uint32_t w) {
    const Addr base = 0x10000 * (w + 1);
    return std::vector<WarpInst>{store(base), store(base + 0x80), store(base + 0x100), exit_inst()};
  });
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
  // One instruction per warp in turn: cycle 1 warp 0, 2 warp 1, 3 warp 2, 4 warp 0 ...
  const std::vector<Addr> expect{0x10000, 0x20000, 0x30000, 0x10080, 0x20080,
                                 0x30080, 0x10100, 0x20100, 0x30100};
  CHECK(b.memory.addresses == expect);
  REQUIRE(b.memory.request_times.size() == 9);
  for (int i = 0; i < 9; ++i) CHECK(b.memory.request_times[i] == sc_time(i + 1, SC_NS));
  REQUIRE(b.sink.done.size() == 1);
  CHECK(b.sink.done[0].t == sc_time(109, SC_NS));
  b.quiescent();
}

namespace {
// One CTA of `threads` threads, each warp storing to three lines of its own (warp w at
// 0x10000 * (w + 1)), run for 1 us on the bench's SM.
void run_three_stores_per_warp(SmBench& b, std::uint32_t threads) {
  ScriptKernel k = make_kernel(1, threads, [](std::uint32_t, std::uint32_t w) {
    const Addr base = 0x10000 * (w + 1);
    return std::vector<WarpInst>{store(base), store(base + 0x80), store(base + 0x100), exit_inst()};
  });
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
}

// Warps 0 and 2 are on scheduler 0, warps 1 and 3 on scheduler 1. Each warp stores three times;
// every cycle one store fits the LD/ST unit. With a fixed order scheduler 0 would win every cycle
// and warp 1's first store would wait for all six of warps 0 and 2.
void check_schedulers_take_turns(WarpSchedulerPolicy p) {
  SmConfig c = sm_config(p, 2);
  c.rotate_issue = true;
  SmBench b(c);
  run_three_stores_per_warp(b, 128);
  REQUIRE(b.memory.addresses.size() == 12);
  // The first six stores alternate: odd cycles scheduler 1 goes first (warps 1, 3), even cycles
  // scheduler 0 (warps 0, 2).
  for (int i = 0; i < 6; ++i) {
    const Addr warp = b.memory.addresses[i] / 0x10000 - 1;
    CHECK(warp % 2 == (i % 2 == 0 ? 1u : 0u));
    CHECK(b.memory.request_times[i] == sc_time(i + 1, SC_NS));
  }
  b.quiescent();
}
}  // namespace

// GPGPU-Sim's shader_core_ctx::issue() rotates which scheduler goes first every cycle.
TEST_CASE("SM: GTO schedulers take turns at the LD/ST unit", "[module][sm]") {
  check_schedulers_take_turns(WarpSchedulerPolicy::Gto);
}

TEST_CASE("SM: LRR schedulers take turns at the LD/ST unit", "[module][sm]") {
  check_schedulers_take_turns(WarpSchedulerPolicy::Lrr);
}

TEST_CASE("SM: with sm.issue_order=fixed scheduler 0 always goes first", "[module][sm]") {
  SmConfig c = sm_config(WarpSchedulerPolicy::Gto, 2);
  c.rotate_issue = false;
  SmBench b(c);
  run_three_stores_per_warp(b, 64);
  // Warp 0 (scheduler 0) takes the LD/ST unit at cycles 1-3; warp 1 gets it only at cycle 4,
  // when warp 0 issues its exit.
  const std::vector<Addr> expect{0x10000, 0x10080, 0x10100, 0x20000, 0x20080, 0x20100};
  CHECK(b.memory.addresses == expect);
  REQUIRE(b.memory.request_times.size() == 6);
  for (int i = 0; i < 6; ++i) CHECK(b.memory.request_times[i] == sc_time(i + 1, SC_NS));
  b.quiescent();
}

// Four schedulers (one warp each), scheduler 0 first. The barrier that warp 0 completes at
// cycle 11 releases warps 1-3 (waiting since cycle 1) in time for schedulers 1-3's turns in the
// same cycle: warp 1 stores at 11; the LD/ST unit is then busy until 12, where scheduler 0's
// warp 0 goes first, then warp 2 (13) and warp 3 (14).
TEST_CASE("SM: a barrier released by one scheduler lets the later schedulers issue that cycle",
          "[module][sm]") {
  SmConfig c = sm_config(WarpSchedulerPolicy::Gto, 4);
  c.rotate_issue = false;
  SmBench b(c);
  ScriptKernel k = make_kernel(1, 128, [](std::uint32_t, std::uint32_t w) {
    const Addr a = 0x10000 * (w + 1);
    if (w == 0) return std::vector<WarpInst>{compute(1, 10), barrier(), store(a), exit_inst()};
    return std::vector<WarpInst>{barrier(), store(a), exit_inst()};
  });
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
  const std::vector<Addr> expect{0x20000, 0x10000, 0x30000, 0x40000};
  CHECK(b.memory.addresses == expect);
  REQUIRE(b.memory.request_times.size() == 4);
  for (int i = 0; i < 4; ++i) CHECK(b.memory.request_times[i] == sc_time(11 + i, SC_NS));
  CHECK(b.stat("warp_insts") == 13);
  b.quiescent();
}

TEST_CASE("SM: a compute block issues its instructions then waits its latency", "[module][sm]") {
  SmBench b(sm_config());
  ScriptKernel k = make_kernel(1, 32, [](std::uint32_t, std::uint32_t) {
    return std::vector<WarpInst>{compute(3, 10, 0x0000ffffu), store(0x1000), exit_inst()};
  });
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
  // Compute at cycles 1, 2, 3; the block's latency counts from its last instruction:
  // the store issues at 3 + 10 = 13.
  REQUIRE(b.memory.request_times.size() == 1);
  CHECK(b.memory.request_times[0] == sc_time(13, SC_NS));
  REQUIRE(b.sink.done.size() == 1);
  CHECK(b.sink.done[0].t == sc_time(113, SC_NS));
  CHECK(b.stat("warp_insts") == 5);                  // 3 compute + store + exit
  CHECK(b.stat("thread_insts") == 3 * 16 + 2 * 32);  // the compute block had 16 active lanes
  CHECK(b.stat("issue_cycles") == 5);
  CHECK(b.stat("global_mem_insts") == 1);
  b.quiescent();
}

TEST_CASE("SM: shared-memory bank conflicts add cycles and occupy the shared pipeline",
          "[module][sm]") {
  SmBench b(sm_config());
  ScriptKernel k = make_kernel(1, 64, [](std::uint32_t, std::uint32_t w) {
    if (w == 0)
      return std::vector<WarpInst>{
          mem_inst(WarpOp::SharedLoad, 0, 128),  // 32 words in bank 0: 32-way conflict
          mem_inst(WarpOp::SharedLoad, 0, 4),    // 32 banks: conflict free
          mem_inst(WarpOp::SharedStore, 64, 0),  // one word for every lane: broadcast
          store(0x1000), exit_inst()};
    return std::vector<WarpInst>{mem_inst(WarpOp::SharedLoad, 0, 4), store(0x2000), exit_inst()};
  });
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
  // Warp 0, cycle 1: 32 passes -> 31 extra cycles; the shared pipeline is busy until 1 + 32 = 33
  // and the data is back after 24 + 31 = 55 cycles (at 56). These instructions name no registers,
  // so each waits for the warp's outstanding loads (the built-in workloads' consumer rule).
  // Warp 1's shared load must wait for the pipeline: it issues at 33, its data is back at
  // 33 + 24 = 57, and its store follows at 57. Warp 0: conflict-free load at 56 (back at 80),
  // broadcast store at 80, which holds nothing, so the global store issues at 81.
  REQUIRE(b.memory.request_times.size() == 2);
  CHECK(b.memory.addresses == std::vector<Addr>{0x2000, 0x1000});
  CHECK(b.memory.request_times[0] == sc_time(57, SC_NS));
  CHECK(b.memory.request_times[1] == sc_time(81, SC_NS));
  CHECK(b.stat("shared_mem_insts") == 4);
  CHECK(b.stat("shared_conflict_cycles") == 31);
  CHECK(b.stat("global_mem_insts") == 2);
  b.quiescent();
}

TEST_CASE("SM: cta_done is reported once per CTA after its last memory response (occupancy)",
          "[module][sm]") {
  SmBench b(sm_config(WarpSchedulerPolicy::Gto, 2));
  ScriptKernel k = make_kernel(4, 32, [](std::uint32_t cta, std::uint32_t) {
    return std::vector<WarpInst>{store(0x1000 * (cta + 1)), exit_inst()};
  });
  for (std::uint32_t c = 0; c < 3; ++c) b.sm->launch_cta(k, 0, c);
  CHECK(b.sm->resident_ctas() == 3);
  // Warps 0 and 2 share scheduler 0, warp 1 is on scheduler 1; the LD/ST unit takes one
  // instruction per cycle and scheduler (cycle mod 2) goes first. Cycle 1: warp 1 stores (warp 0
  // must wait for the LD/ST unit). Cycle 2: warp 0 stores, warp 1 exits. Cycle 3: warp 0 exits.
  // Cycle 4: warp 2 stores. Cycle 5: warp 2 exits. Every warp has exited by 50 ns but the stores
  // are still outstanding.
  sc_core::sc_start(sc_time(50, SC_NS));
  CHECK(b.sm->resident_ctas() == 3);
  CHECK(b.sink.done.empty());
  sc_core::sc_start(sc_time(51500, sc_core::SC_PS));  // to 101.5 ns: CTA 1's store answered
  CHECK(b.sm->resident_ctas() == 2);
  sc_core::sc_start(sc_time(98500, sc_core::SC_PS));  // to 200 ns
  CHECK(b.sm->resident_ctas() == 0);
  REQUIRE(b.sink.done.size() == 3);
  const std::uint32_t order[] = {1, 0, 2};
  const int at[] = {101, 102, 104};
  for (std::uint32_t i = 0; i < 3; ++i) {
    CHECK(b.sink.done[i].cta == order[i]);
    CHECK(b.sink.done[i].t == sc_time(at[i], SC_NS));
  }
  // A freed CTA slot is reused: launched at 200 ns, store at 201, done at 301.
  b.sm->launch_cta(k, 0, 3);
  CHECK(b.sm->resident_ctas() == 1);
  sc_core::sc_start(sc_time(200, SC_NS));
  REQUIRE(b.sink.done.size() == 4);
  CHECK(b.sink.done[3].cta == 3);
  CHECK(b.sink.done[3].t == sc_time(301, SC_NS));
  CHECK(b.memory.request_times == std::vector<sc_time>{sc_time(1, SC_NS), sc_time(2, SC_NS),
                                                       sc_time(4, SC_NS), sc_time(201, SC_NS)});
  CHECK(b.stat("ctas_completed") == 4);
  b.quiescent();
}

TEST_CASE("SM: with check_data, stores carry golden values and loads are verified",
          "[module][sm]") {
  SmBench b(sm_config(), true);
  ScriptKernel k = make_kernel(1, 32, [](std::uint32_t, std::uint32_t) {
    return std::vector<WarpInst>{store(0x4000), compute(1, 200), load(0x4000), load(0x5000),
                                 exit_inst()};
  });
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
  REQUIRE(b.sink.done.size() == 1);
  CHECK(b.ctx.failures.empty());
  for (Addr a : {0x4000, 0x4004, 0x407c}) CHECK(b.memory.mem.read_word(a) == store_word(a, 0));
  CHECK(b.memory.mem.read_word(0x5000) == initial_word(0x5000));
  b.quiescent();
}

TEST_CASE("SM: with check_data, a wrong loaded value is reported as a failure", "[module][sm]") {
  SmBench b(sm_config(), true);
  ScriptKernel k = make_kernel(1, 32, [](std::uint32_t, std::uint32_t) {
    return std::vector<WarpInst>{load(0x6000), exit_inst()};
  });
  b.memory.mem.write_word(0x6010, initial_word(0x6010) ^ 1u);  // memory disagrees with golden
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
  REQUIRE(b.ctx.failures.size() == 1);
  CHECK(b.ctx.failures[0].find("sm: data integrity") == 0);
  CHECK(b.ctx.failures[0].find("6010") != std::string::npos);
  // ctx.fail stopped the simulation at the response (101 ns).
  CHECK(sc_core::sc_time_stamp() == sc_time(101, SC_NS));
}

// ---- scoreboard (issue 15) ----------------------------------------------------------------------

namespace {

// Register-annotated instructions, as the trace reader produces them (wait_all_loads off).
WarpInst with_regs(WarpInst in, std::initializer_list<std::uint8_t> dst,
                   std::initializer_list<std::uint8_t> src) {
  in.wait_all_loads = false;
  in.n_dst = in.n_src = 0;
  for (std::uint8_t r : dst) in.dst[in.n_dst++] = r;
  for (std::uint8_t r : src) in.src[in.n_src++] = r;
  return in;
}

// ld R4 <- [0x1000]; ld R5 <- [0x2000] (or [R4] when dependent); FFMA R6 <- R4, R5;
// st [0x3000] <- R6; exit.
std::vector<WarpInst> load_pair(bool dependent) {
  return {with_regs(load(0x1000), {4}, {2}),
          with_regs(load(0x2000), {5}, {static_cast<std::uint8_t>(dependent ? 4 : 3)}),
          with_regs(compute(1, 1), {6}, {4, 5}), with_regs(store(0x3000), {}, {8, 6}),
          with_regs(exit_inst(), {}, {})};
}

SmConfig sb_config(ScoreboardMode mode) {
  SmConfig c = sm_config();
  c.scoreboard = mode;
  return c;
}

// Runs load_pair on one warp of `b`; returns the memory's request times in ns.
std::vector<double> run_pair(SmBench& b, bool dependent) {
  ScriptKernel k = make_kernel(
      1, 32, [dependent](std::uint32_t, std::uint32_t) { return load_pair(dependent); });
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
  std::vector<double> t;
  for (const sc_time& x : b.memory.request_times) t.push_back(std::round(x.to_seconds() * 1e9));
  return t;
}

}  // namespace

TEST_CASE("SM scoreboard: two independent loads overlap (one memory latency)", "[module][sm]") {
  SmBench b(sb_config(ScoreboardMode::Registers));
  // ld R4 at 1 ns, ld R5 at 2 ns (independent), responses at 101 and 102 ns; the FFMA reading
  // both issues at 103, the store at 104: one 100 ns latency, not two.
  CHECK(run_pair(b, false) == std::vector<double>{1, 2, 104});
  CHECK(b.stat("scoreboard_stalled_insts") == 1);   // the FFMA
  CHECK(b.stat("scoreboard_stall_cycles") == 100);  // ready at 3, issued at 103
  REQUIRE(b.sink.done.size() == 1);
  CHECK(b.sink.done[0].t == sc_time(204, SC_NS));
  b.quiescent();
}

TEST_CASE("SM scoreboard: block-all serialises the same independent loads", "[module][sm]") {
  SmBench b(sb_config(ScoreboardMode::BlockAll));
  // The old model: the second load waits for the first response (101 ns) -> 102, 202 -> 203,
  // store at 204 ns: two latencies.
  CHECK(run_pair(b, false) == std::vector<double>{1, 102, 204});
  CHECK(b.stat("scoreboard_stalled_insts") == 2);  // the second load and the FFMA
  CHECK(b.stat("scoreboard_stall_cycles") == 200);
  b.quiescent();
}

TEST_CASE("SM scoreboard: a dependent load waits for its producer (registers)", "[module][sm]") {
  SmBench b(sb_config(ScoreboardMode::Registers));
  CHECK(run_pair(b, true) == std::vector<double>{1, 102, 204});
  CHECK(b.stat("scoreboard_stall_cycles") == 200);
  b.quiescent();
}

TEST_CASE("SM scoreboard: a dependent load waits for its producer (block-all)", "[module][sm]") {
  SmBench b(sb_config(ScoreboardMode::BlockAll));
  CHECK(run_pair(b, true) == std::vector<double>{1, 102, 204});
  b.quiescent();
}

// GPGPU-Sim puts an LDS's destination registers on the scoreboard and lets an STS go; locsim
// held the warp for sm.shared_latency on both (found against Accel-Sim, validation/accelsim.md).
TEST_CASE("SM scoreboard: a shared load holds only its destinations, a shared store nothing",
          "[module][sm]") {
  SmBench b(sb_config(ScoreboardMode::Registers));
  ScriptKernel k = make_kernel(1, 32, [](std::uint32_t, std::uint32_t) {
    return std::vector<WarpInst>{
        with_regs(mem_inst(WarpOp::SharedStore, 0), {}, {3}),  // STS [R3] <- R3
        with_regs(mem_inst(WarpOp::SharedLoad, 0), {4}, {2}),  // LDS R4 <- [R2]
        with_regs(store(0x1000), {}, {8, 9}),                  // independent of R4
        with_regs(compute(1, 1), {6}, {4}),                    // reads R4
        with_regs(store(0x2000), {}, {8, 6}),
        with_regs(exit_inst(), {}, {})};
  });
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
  // STS at 1 (the shared pipeline is busy for one cycle), LDS at 2 (R4 back at 2 + 24 = 26), the
  // independent store at 3; the FFMA waits for R4 (ready at 4, issued at 26, latency 1), the
  // dependent store at 27. Holding the warp at each shared access gave 50 and 51.
  REQUIRE(b.memory.request_times.size() == 2);
  CHECK(b.memory.request_times[0] == sc_time(3, SC_NS));
  CHECK(b.memory.request_times[1] == sc_time(27, SC_NS));
  CHECK(b.stat("scoreboard_stalled_insts") == 1);
  CHECK(b.stat("scoreboard_stall_cycles") == 22);
  b.quiescent();
}

TEST_CASE("SM scoreboard: block-all holds every later instruction at a shared load",
          "[module][sm]") {
  SmBench b(sb_config(ScoreboardMode::BlockAll));
  ScriptKernel k = make_kernel(1, 32, [](std::uint32_t, std::uint32_t) {
    return std::vector<WarpInst>{with_regs(mem_inst(WarpOp::SharedLoad, 0), {4}, {2}),
                                 with_regs(store(0x1000), {}, {8, 9}),
                                 with_regs(exit_inst(), {}, {})};
  });
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
  // LDS at 1, back at 25: the independent store waits for it under block-all.
  REQUIRE(b.memory.request_times.size() == 1);
  CHECK(b.memory.request_times[0] == sc_time(25, SC_NS));
  b.quiescent();
}

TEST_CASE("SM scoreboard: a barrier does not wait for the warp's loads (GPGPU-Sim)",
          "[module][sm]") {
  SmBench b(sm_config());
  // Warp 0 loads R4 and reaches the barrier at cycle 2 without waiting for the load; warp 1
  // arrives at cycle 3, the barrier opens and warp 1 stores at 4 ns, long before warp 0's load
  // returns (101 ns). Warp 0's FFMA (reads R4) then waits for the load: its store goes at 103.
  ScriptKernel k = make_kernel(1, 64, [](std::uint32_t, std::uint32_t w) {
    if (w == 0)
      return std::vector<WarpInst>{with_regs(load(0x1000), {4}, {2}), with_regs(barrier(), {}, {}),
                                   with_regs(compute(1, 1), {6}, {4}),
                                   with_regs(store(0x3000), {}, {6}), exit_inst()};
    return std::vector<WarpInst>{barrier(), store(0x2000), exit_inst()};
  });
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
  CHECK(b.memory.addresses == std::vector<Addr>{0x1000, 0x2000, 0x3000});
  REQUIRE(b.memory.request_times.size() == 3);
  CHECK(b.memory.request_times[1] == sc_time(4, SC_NS));
  CHECK(b.memory.request_times[2] == sc_time(103, SC_NS));
  b.quiescent();
}

TEST_CASE("SM scoreboard: register dependencies read from an Accel-Sim trace", "[module][sm]") {
  // The same pair as load_pair, as trace lines: two independent LDGs, an FFMA (latency 4) reading
  // both, then a dependent LDG (address register R6) feeding the store.
  const std::string dir = "/tmp/locsim_sb_mt_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/kernel-1.traceg";
  std::ofstream(path) << "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n"
                         "-block dim = (32,1,1)\n-shmem = 0\n-nregs = 16\n-binary version = 70\n"
                         "-cuda stream id = 0\n-shmem base_addr = 0x0\n"
                         "-local mem base_addr = 0x0\n-nvbit version = 1.5\n"
                         "-accelsim tracer version = 4\n\n#BEGIN_TB\n\nthread block = 0,0,0\n\n"
                         "warp = 0\ninsts = 6\n"
                         "0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4\n"
                         "0010 ffffffff 1 R5 LDG.E 1 R3 4 1 0x2000 4\n"
                         "0020 ffffffff 1 R6 FFMA 3 R4 R5 R255 0\n"
                         "0030 ffffffff 1 R7 LDG.E 1 R6 4 1 0x4000 4\n"
                         "0040 ffffffff 0 STG.E 2 R8 R7 4 1 0x3000 4\n"
                         "0050 ffffffff 0 EXIT 0 0\n\n#END_TB\n";
  auto kernel = open_accelsim_kernel(path);
  SmBench b(sm_config());
  b.sm->launch_cta(*kernel, 0, 0);
  sc_core::sc_start(sc_time(1000, SC_NS));
  // LDGs at 1 and 2 ns; FFMA at 103 (after both responses), ready at 107: the dependent LDG at
  // 107, its response at 207, the store at 208.
  REQUIRE(b.memory.request_times.size() == 4);
  CHECK(b.memory.request_times[0] == sc_time(1, SC_NS));
  CHECK(b.memory.request_times[1] == sc_time(2, SC_NS));
  CHECK(b.memory.request_times[2] == sc_time(107, SC_NS));
  CHECK(b.memory.request_times[3] == sc_time(208, SC_NS));
  b.quiescent();
  std::filesystem::remove_all(dir);
}

TEST_CASE("SM scoreboard: overlapping loads still pass check_data", "[module][sm]") {
  SmBench b(sm_config(), true);
  // A store, then four independent loads in flight together (one of the stored line), then
  // the consumer: every returned line is checked against the golden memory.
  ScriptKernel k = make_kernel(1, 64, [](std::uint32_t, std::uint32_t w) {
    const Addr o = 0x10000 * w;
    return std::vector<WarpInst>{store(0x4000 + o),
                                 compute(1, 200),
                                 with_regs(load(0x4000 + o), {4}, {}),
                                 with_regs(load(0x5000 + o), {5}, {}),
                                 with_regs(load(0x6000 + o), {6}, {}),
                                 with_regs(load(0x7000 + o), {7}, {}),
                                 with_regs(compute(1, 1), {8}, {4, 5, 6, 7}),
                                 exit_inst()};
  });
  b.sm->launch_cta(k, 0, 0);
  sc_core::sc_start(sc_time(2000, SC_NS));
  REQUIRE(b.sink.done.size() == 1);
  CHECK(b.ctx.failures.empty());
  CHECK(b.stat("line_requests") == 10);
  const AggregateStat* lat = b.dist("load_latency");
  REQUIRE(lat);
  CHECK(lat->count == 8);
  b.quiescent();
}

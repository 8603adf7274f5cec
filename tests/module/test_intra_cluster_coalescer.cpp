// ICC unit module tests (seed 001 §6): three L1-side initiators of one cluster, protocol checkers
// on every link, a memory with a fixed latency behind the NoC port. One elaboration per TEST_CASE.
#include <catch2/catch.hpp>
#include <cstring>

#include "harness.h"
#include "tlm_components/intra_cluster_coalescer.h"
#include "tlm_components/protocol_checker.h"

using namespace locsim;
using namespace locsim::test;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
struct IccBench {
  SimContext ctx;
  std::vector<std::unique_ptr<TestInitiator>> l1;
  std::vector<std::unique_ptr<ProtocolChecker>> up;
  std::unique_ptr<IntraClusterCoalescer> icc;
  ProtocolChecker down{"check_down"};
  TestMemory memory{"memory", sc_time(100, SC_NS)};
  explicit IccBench(IccConfig cfg) {
    ctx.check_data = true;
    cfg.clock_hz = 1e9;  // 1 ns cycles
    cfg.first_sm = 10;   // cluster 2 of 5-SM clusters, say: SM ids are not port indices
    cfg.sms = 3;
    icc = std::make_unique<IntraClusterCoalescer>("icc", cfg, ctx);
    for (int i = 0; i < 3; ++i) {
      l1.push_back(std::make_unique<TestInitiator>(("l1_" + std::to_string(i)).c_str()));
      up.push_back(std::make_unique<ProtocolChecker>(("check_up" + std::to_string(i)).c_str()));
      l1[i]->socket.bind(up[i]->target);
      up[i]->initiator.bind(icc->cpu);
    }
    icc->noc.bind(down.target);
    down.initiator.bind(memory.socket);
  }
  Payload* load(int sm, Addr line, std::uint32_t bytes = 128) {
    return make_load(ctx, line, bytes, static_cast<std::uint16_t>(10 + sm));
  }
  Payload* store(int sm, Addr line, std::uint32_t value) {
    Payload* st = load(sm, line);
    st->set_command(tlm::TLM_WRITE_COMMAND);
    GpuExtension& e = gpu_ext(*st);
    e.kind = AccessKind::Store;
    e.bytes = ByteMask();
    e.bytes.set_range(0, 4);
    std::memcpy(st->get_data_ptr(), &value, 4);
    return st;
  }
  std::uint64_t stat(const char* n) { return ctx.stats.total("icc", n); }
  std::uint64_t depth_max() {
    for (const AggregateStat& a : ctx.stats.aggregate(StatSnapshot{}, ctx.stats.snapshot()))
      if (a.kind == "icc" && a.name == "broadcast_queue_depth") return a.max;
    return ~std::uint64_t{0};
  }
  void quiet() {
    for (auto& c : up) CHECK(c->open_transactions() == 0);
    CHECK(down.open_transactions() == 0);
  }
};

std::uint32_t word(Payload* gp, unsigned off) {
  std::uint32_t w;
  std::memcpy(&w, gp->get_data_ptr() + off, 4);
  return w;
}
}  // namespace

TEST_CASE("ICC: reads of one line from three SMs make one NoC request and three replies",
          "[module][icc]") {
  IccConfig cfg;
  IccBench b(cfg);
  for (int i = 0; i < 3; ++i) b.l1[i]->push(b.load(i, 0x4000));
  sc_core::sc_start(sc_time(500, SC_NS));
  CHECK(b.memory.addresses.size() == 1);
  CHECK(b.stat("merge_hits") == 2);
  CHECK(b.stat("merge_allocations") == 1);
  CHECK(b.stat("broadcast_replies") == 2);
  CHECK(b.stat("noc_requests") == 1);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(b.l1[i]->responses.size() == 1);
    Payload* r = b.l1[i]->responses[0];
    CHECK(gpu_ext(*r).sm == 10 + i);  // each SM gets its own payload back
    CHECK(word(r, 64) == initial_word(0x4040));
  }
  // The leader's reply (whichever SM won the first lookup) lists every requester.
  int leaders = 0;
  for (int i = 0; i < 3; ++i) leaders += gpu_ext(*b.l1[i]->responses[0]).requesters.size() == 3;
  CHECK(leaders == 1);
  CHECK(b.icc->merge_entries_in_use() == 0);
  CHECK(b.ctx.stats.total("cluster", "redundant_data_sharing") == 2);
  b.quiet();
}

TEST_CASE("ICC: a full merge table sends the read unmerged and its reply goes to its own SM",
          "[module][icc]") {
  IccConfig cfg;
  cfg.merge_entries = 1;
  IccBench b(cfg);
  b.l1[0]->push(b.load(0, 0x0000));
  sc_core::sc_start(sc_time(10, SC_NS));  // 0x0000 holds the only entry for 100 ns
  b.l1[1]->push(b.load(1, 0x0080));       // table full: unmerged, no entry recorded
  b.l1[2]->push(b.load(2, 0x0080));       // so this one finds none either: unmerged too
  sc_core::sc_start(sc_time(500, SC_NS));
  CHECK(b.memory.addresses.size() == 3);
  CHECK(b.stat("merge_full") == 2);
  CHECK(b.stat("merge_hits") == 0);
  for (int i = 0; i < 3; ++i) REQUIRE(b.l1[i]->responses.size() == 1);
  CHECK(word(b.l1[2]->responses[0], 0) == initial_word(0x0080));
  b.quiet();
}

TEST_CASE("ICC: writes bypass the merge table and reach memory", "[module][icc]") {
  IccConfig cfg;
  IccBench b(cfg);
  b.l1[0]->push(b.load(0, 0x1000));
  b.l1[1]->push(b.store(1, 0x1000, 0xabcd1234));
  sc_core::sc_start(sc_time(500, SC_NS));
  CHECK(b.memory.addresses.size() == 2);
  CHECK(b.stat("writes") == 1);
  CHECK(b.stat("merge_hits") == 0);
  std::uint8_t d[4];
  b.memory.mem.read(0x1000, d, 4);
  std::uint32_t v;
  std::memcpy(&v, d, 4);
  CHECK(v == 0xabcd1234);
  b.quiet();
}

TEST_CASE("ICC: the coalesced cache keeps only coalesced lines and a store evicts them",
          "[module][icc]") {
  IccConfig cfg;
  cfg.coalesced_cache = true;
  cfg.cc_entries = 4;
  IccBench b(cfg);
  // 0x2000 read by two SMs (coalesced), 0x3000 by one (not coalesced).
  b.l1[0]->push(b.load(0, 0x2000));
  b.l1[1]->push(b.load(1, 0x2000));
  b.l1[2]->push(b.load(2, 0x3000));
  sc_core::sc_start(sc_time(500, SC_NS));
  CHECK(b.stat("cc_fills") == 1);
  // Later reads: 0x2000 hits the CC (no NoC request, data from the CC), 0x3000 misses.
  b.l1[2]->push(b.load(2, 0x2000));
  b.l1[0]->push(b.load(0, 0x3000));
  sc_core::sc_start(sc_time(500, SC_NS));
  CHECK(b.stat("cc_hits") == 1);
  CHECK(b.memory.addresses.size() == 3);
  REQUIRE(b.l1[2]->responses.size() == 2);
  CHECK(word(b.l1[2]->responses[1], 124) == initial_word(0x207c));
  // A store to the cached line invalidates it: the next read goes to memory and sees the store.
  b.l1[1]->push(b.store(1, 0x2000, 0x5555aaaa));
  sc_core::sc_start(sc_time(500, SC_NS));
  CHECK(b.stat("cc_write_invalidations") == 1);
  b.l1[0]->push(b.load(0, 0x2000));
  sc_core::sc_start(sc_time(500, SC_NS));
  CHECK(b.stat("cc_hits") == 1);
  REQUIRE(b.l1[0]->responses.size() == 3);
  CHECK(word(b.l1[0]->responses[2], 0) == 0x5555aaaa);
  // Kernel boundary: invalidate_all empties the CC.
  b.l1[2]->push(b.load(2, 0x2000));
  b.l1[1]->push(b.load(1, 0x2000));
  sc_core::sc_start(sc_time(500, SC_NS));
  b.icc->invalidate_all();
  b.l1[0]->push(b.load(0, 0x2000));
  sc_core::sc_start(sc_time(500, SC_NS));
  CHECK(b.stat("cc_hits") == 1);
  b.quiet();
}

TEST_CASE("ICC: one lookup per cycle and the configured latency", "[module][icc]") {
  IccConfig cfg;
  cfg.latency = 3;
  IccBench b(cfg);
  b.l1[0]->push(b.load(0, 0x0000));
  b.l1[1]->push(b.load(1, 0x0080));
  sc_core::sc_start(sc_time(500, SC_NS));
  REQUIRE(b.memory.request_times.size() == 2);
  // Accepted at 0 and 1 ns, each reaches memory `latency` cycles after its lookup.
  CHECK(b.memory.request_times[0] == sc_time(3, SC_NS));
  CHECK(b.memory.request_times[1] == sc_time(4, SC_NS));
  b.quiet();
}

TEST_CASE("ICC: a full broadcast queue holds replies at the NoC port and loses none",
          "[module][icc]") {
  IccConfig cfg;
  cfg.broadcast_queue = 2;
  IccBench b(cfg);
  b.l1[0]->hold_responses = true;  // SM 10's L1 takes no response: its queue fills
  // SM 11 leads 0x8000 and SM 10 merges into it: that reply is broadcast into SM 10's queue too.
  b.l1[1]->push(b.load(1, 0x8000));
  for (Addr a : {0x1000, 0x2000, 0x3000}) b.l1[0]->push(b.load(0, a));
  sc_core::sc_start(sc_time(10, SC_NS));
  b.l1[0]->push(b.load(0, 0x8000));
  b.l1[2]->push(b.load(2, 0x9000));  // behind SM 10's replies at the cluster's port
  sc_core::sc_start(sc_time(1000, SC_NS));
  CHECK(b.memory.addresses.size() == 5);
  CHECK(b.stat("merge_hits") == 1);
  // SM 10 needs four responses: one waits in its L1 port, two fill its queue, the fourth reply
  // stalls at the NoC port, and so does SM 12's reply queued behind it.
  CHECK(b.l1[0]->held.size() == 1);
  CHECK(b.stat("broadcast_stalls") >= 1);
  CHECK(b.depth_max() == 2);
  CHECK(b.l1[2]->responses.empty());
  // The L1 takes responses again: everything arrives, once, with its data.
  b.l1[0]->release_held();
  sc_core::sc_start(sc_time(1000, SC_NS));
  REQUIRE(b.l1[0]->responses.size() == 4);
  REQUIRE(b.l1[1]->responses.size() == 1);
  REQUIRE(b.l1[2]->responses.size() == 1);
  for (Payload* r : b.l1[0]->responses) {
    const Addr a = r->get_address();
    CHECK(word(r, 8) == initial_word(a + 8));
  }
  CHECK(word(b.l1[2]->responses[0], 0) == initial_word(0x9000));
  CHECK(b.depth_max() == 2);
  CHECK(b.icc->merge_entries_in_use() == 0);
  b.quiet();
}

TEST_CASE("ICC: a coalesced-cache hit waits for room in its broadcast queue", "[module][icc]") {
  IccConfig cfg;
  cfg.coalesced_cache = true;
  cfg.broadcast_queue = 1;
  IccBench b(cfg);
  // 0x2000 read by SMs 11 and 12: coalesced, cached.
  b.l1[1]->push(b.load(1, 0x2000));
  b.l1[2]->push(b.load(2, 0x2000));
  sc_core::sc_start(sc_time(500, SC_NS));
  REQUIRE(b.stat("cc_fills") == 1);
  b.l1[0]->hold_responses = true;
  b.l1[0]->push(b.load(0, 0x1000));  // its reply waits in the L1 port
  b.l1[0]->push(b.load(0, 0x3000));  // its reply fills the one-entry queue
  sc_core::sc_start(sc_time(500, SC_NS));
  b.l1[0]->push(b.load(0, 0x2000));  // a CC hit with no queue room: not accepted yet
  sc_core::sc_start(sc_time(500, SC_NS));
  CHECK(b.stat("cc_hits") == 0);
  CHECK(b.depth_max() == 1);
  b.l1[0]->release_held();
  sc_core::sc_start(sc_time(500, SC_NS));
  CHECK(b.stat("cc_hits") == 1);
  REQUIRE(b.l1[0]->responses.size() == 3);
  CHECK(word(b.l1[0]->responses[2], 4) == initial_word(0x2004));
  b.quiet();
}

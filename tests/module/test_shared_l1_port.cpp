// Shared-L1 port module tests (seed 002 §3.2, spec T3-T5): two cores, each an SM-side initiator,
// a SharedL1Port and a 16 KB 4-way L1D whose misses go to its own memory (so each core's L2
// traffic is counted apart), joined by a zero-cost core-to-core network. Protocol checkers on
// every link; home = tag bit 0 (HomeMap of 2 cores). One elaboration per TEST_CASE.
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>

#include "harness.h"
#include "model/shared_l1.h"
#include "tlm_components/ideal_network.h"
#include "tlm_components/l1_data_cache.h"
#include "tlm_components/protocol_checker.h"
#include "tlm_components/shared_l1_port.h"

using namespace locsim;
using namespace locsim::test;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

struct Core {
  std::unique_ptr<TestInitiator> sm;
  std::unique_ptr<SharedL1Port> port;
  std::unique_ptr<L1DataCache> l1;
  std::unique_ptr<TestMemory> mem;
};

struct SharedBench {
  SimContext ctx;
  HomeMap home{2, 128, 32};
  Core core[2];
  std::unique_ptr<IdealNetwork> net;
  std::vector<std::unique_ptr<ProtocolChecker>> checks;

  template <class I, class T>
  void link(I& i, T& t, const std::string& n) {
    checks.push_back(std::make_unique<ProtocolChecker>(("check_" + n).c_str()));
    i.bind(checks.back()->target);
    checks.back()->initiator.bind(t);
  }

  explicit SharedBench(bool chunk = true) {
    ctx.check_data = true;
    L1Config lc;
    lc.geometry.sets = 32;
    lc.geometry.ways = 4;
    lc.geometry.line_bytes = 128;
    lc.geometry.sector_bytes = 128;
    lc.clock_hz = 1e9;
    SharedL1PortConfig pc;
    pc.chunk = chunk;
    pc.clock_hz = 1e9;
    net = std::make_unique<IdealNetwork>("net", 2, 2, ctx);
    for (std::uint32_t i = 0; i < 2; ++i) {
      const std::string s = std::to_string(i);
      Core& c = core[i];
      c.sm = std::make_unique<TestInitiator>(("sm" + s).c_str());
      pc.core = i;
      c.port = std::make_unique<SharedL1Port>(("port" + s).c_str(), pc, ctx);
      c.l1 = std::make_unique<L1DataCache>(("l1d" + s).c_str(), lc, ctx);
      c.mem = std::make_unique<TestMemory>(("mem" + s).c_str(), sc_time(100, SC_NS));
      link(c.sm->socket, c.port->cpu, "sm" + s);
      link(c.port->l1, c.l1->cpu, "l1" + s);
      link(c.l1->mem, c.mem->socket, "mem" + s);
      link(c.port->remote, net->in, "remote" + s);
      c.port->decide = [this, i](const Payload& gp) {
        SharedL1Route r;
        const Addr a = const_cast<Payload&>(gp).get_address();
        const std::uint32_t h = home.home(a);
        if (gpu_ext(const_cast<Payload&>(gp)).kind == AccessKind::Atomic || h == i) return r;
        r.kind = SharedL1Route::Home;
        r.target = static_cast<std::int32_t>(h);
        return r;
      };
      c.port->drop_local_copy = [this, i](Addr line) { core[i].l1->drop_line(line); };
    }
    for (std::uint32_t i = 0; i < 2; ++i)
      link(net->out, core[i].port->home, "home" + std::to_string(i));
  }
  Payload* load(int sm, Addr a, std::uint32_t bytes = 4) {
    Payload* gp = make_load(ctx, a, 128, static_cast<std::uint16_t>(sm));
    GpuExtension& e = gpu_ext(*gp);
    e.bytes = ByteMask();
    e.bytes.set_range(static_cast<unsigned>(a & 127), bytes);
    e.sector_mask = e.bytes.sector_mask(32);
    gp->set_address(a & ~Addr{127});
    return gp;
  }
  void quiet() {
    for (auto& c : checks) CHECK(c->open_transactions() == 0);
  }
};

constexpr Addr kHomedAt1 = 0x1000;  // tag bit 0 = 1
constexpr Addr kHomedAt0 = 0x2000;

}  // namespace

TEST_CASE(
    "shared L1 port: a remote read misses at the home and fills only the home, then hits "
    "there (T3)",
    "[shared_l1]") {
  SharedBench b;
  REQUIRE(b.home.home(kHomedAt1) == 1);
  b.core[0].sm->push(b.load(0, kHomedAt1));
  sc_core::sc_start(1000, SC_NS);
  REQUIRE(b.core[0].sm->responses.size() == 1);
  CHECK(b.core[1].mem->addresses.size() == 1);  // one L2 read, by the home
  CHECK(b.core[0].mem->addresses.empty());
  CHECK(b.core[1].l1->tags().find(kHomedAt1) >= 0);
  CHECK(b.core[0].l1->tags().valid_lines() == 0);  // not cached at the requester (Fig. 4 (6))
  // Chunk: the 4-byte load still names one 32 B sector only.
  CHECK(gpu_ext(*b.core[0].sm->responses[0]).sector_mask == 0x1u);
  b.core[0].sm->push(b.load(0, kHomedAt1 + 64));
  sc_core::sc_start(1000, SC_NS);
  REQUIRE(b.core[0].sm->responses.size() == 2);
  CHECK(b.core[1].mem->addresses.size() == 1);  // hit at the home: no new L2 request
  CHECK(b.ctx.stats.total("l1d", "hits") == 1);
  CHECK(b.ctx.stats.total("shared_l1", "remote_requests") == 2);
  CHECK(b.ctx.stats.total("shared_l1", "served_remote") == 2);
  CHECK(b.core[0].sm->response_times[1] - sc_time(1000, SC_NS) < sc_time(40, SC_NS));
  b.quiet();
}

TEST_CASE("shared L1 port: without Chunk a remote load's reply is the whole line", "[shared_l1]") {
  SharedBench b(/*chunk=*/false);
  b.core[0].sm->push(b.load(0, kHomedAt1));
  sc_core::sc_start(1000, SC_NS);
  REQUIRE(b.core[0].sm->responses.size() == 1);
  CHECK(gpu_ext(*b.core[0].sm->responses[0]).sector_mask == 0xFu);
  b.quiet();
}

TEST_CASE(
    "shared L1 port: local and remote misses of one line share the home's MSHR entry and "
    "local goes first in the same cycle (T4)",
    "[shared_l1]") {
  SharedBench b;
  b.core[1].sm->push(b.load(1, kHomedAt1));       // local at the home
  b.core[0].sm->push(b.load(0, kHomedAt1 + 32));  // remote, same line
  sc_core::sc_start(1000, SC_NS);
  REQUIRE(b.core[0].sm->responses.size() == 1);
  REQUIRE(b.core[1].sm->responses.size() == 1);
  CHECK(b.core[1].mem->addresses.size() == 1);  // one L2 request for both
  CHECK(b.ctx.stats.total("l1d", "misses") == 1);
  CHECK(b.ctx.stats.total("l1d", "mshr_hits") == 1);
  // Both present now: a local and a remote hit issued at once; the local one is served first.
  b.core[0].sm->push(b.load(0, kHomedAt1 + 64));
  b.core[1].sm->push(b.load(1, kHomedAt1 + 96));
  sc_core::sc_start(1000, SC_NS);
  REQUIRE(b.core[0].sm->responses.size() == 2);
  REQUIRE(b.core[1].sm->responses.size() == 2);
  CHECK(b.core[1].sm->response_times[1] < b.core[0].sm->response_times[1]);
  b.quiet();
}

TEST_CASE(
    "shared L1 port: a remote write goes through the home to L2 and its ack back and "
    "nothing is allocated (T5)",
    "[shared_l1]") {
  SharedBench b;
  Payload* st = make_word_store(b.ctx, kHomedAt1, 8, 0xabcd1234u);
  gpu_ext(*st).sm = 0;
  b.core[0].sm->push(st);
  sc_core::sc_start(1000, SC_NS);
  REQUIRE(b.core[0].sm->responses.size() == 1);
  CHECK(b.core[1].mem->addresses.size() == 1);  // the write reached L2 from the home
  CHECK(b.core[0].mem->addresses.empty());
  CHECK(b.core[0].l1->tags().valid_lines() == 0);
  CHECK(b.core[1].l1->tags().valid_lines() == 0);
  std::uint32_t w = 0;
  b.core[1].mem->mem.read(kHomedAt1 + 8, reinterpret_cast<std::uint8_t*>(&w), 4);
  CHECK(w == 0xabcd1234u);
  b.quiet();
}

TEST_CASE("shared L1 port: local requests pass straight through and atomics stay local (R2.5)",
          "[shared_l1]") {
  SharedBench b;
  b.core[0].sm->push(b.load(0, kHomedAt0));
  Payload* at = b.load(0, kHomedAt1);
  at->set_command(tlm::TLM_WRITE_COMMAND);
  gpu_ext(*at).kind = AccessKind::Atomic;
  b.core[0].sm->push(at);
  sc_core::sc_start(1000, SC_NS);
  REQUIRE(b.core[0].sm->responses.size() == 2);
  CHECK(b.core[0].mem->addresses.size() == 2);  // both from core 0's own L1
  CHECK(b.core[1].mem->addresses.empty());
  CHECK(b.ctx.stats.total("shared_l1", "local_requests") == 2);
  CHECK(b.ctx.stats.total("shared_l1", "remote_requests") == 0);
  // A local hit costs exactly the L1's hit latency: the port adds nothing.
  b.core[0].sm->push(b.load(0, kHomedAt0 + 4));
  sc_core::sc_start(1000, SC_NS);
  REQUIRE(b.core[0].sm->responses.size() == 3);
  CHECK(b.core[0].sm->response_times[2] - sc_time(1000, SC_NS) == sc_time(28, SC_NS));
  b.quiet();
}

TEST_CASE(
    "shared L1 port: a stream of remote and local loads through small queues loses "
    "nothing",
    "[shared_l1]") {
  SharedBench b;
  for (int k = 0; k < 200; ++k) {
    const Addr a = static_cast<Addr>((k * 7919) % 4096) * 128;
    b.core[0].sm->push(b.load(0, a + (k % 32) * 4));
    b.core[1].sm->push(b.load(1, a + 0x80000 + (k % 32) * 4));
  }
  sc_core::sc_start(200, sc_core::SC_US);
  CHECK(b.core[0].sm->responses.size() == 200);
  CHECK(b.core[1].sm->responses.size() == 200);
  CHECK(b.ctx.stats.total("shared_l1", "remote_requests") > 50);
  b.quiet();
}

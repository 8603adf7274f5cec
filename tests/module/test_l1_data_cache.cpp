// L1D module tests: one elaboration per TEST_CASE (ctest runs each in its own process).
#include <catch2/catch.hpp>
#include <cstring>

#include "harness.h"
#include "l1_bench.h"
#include "tlm_components/l1_data_cache.h"
#include "tlm_components/protocol_checker.h"

using namespace locsim;
using namespace locsim::test;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

L1Config small_l1() {
  L1Config c;
  c.geometry.sets = 4;
  c.geometry.ways = 2;
  c.geometry.line_bytes = 128;
  c.geometry.sector_bytes = 128;
  c.mshr_entries = 4;
  c.mshr_max_merge = 4;
  c.miss_queue = 4;
  c.hit_latency = 10;
  return c;
}
}  // namespace

TEST_CASE("L1D: miss, MSHR merge, then hit, with correct data", "[module][l1d]") {
  L1Bench b(small_l1());
  b.sm.push(make_load(b.ctx, 0x1000));
  b.sm.push(make_load(b.ctx, 0x1000));
  sc_core::sc_start(sc_time(500, SC_NS));
  REQUIRE(b.sm.responses.size() == 2);
  b.sm.push(make_load(b.ctx, 0x1000));
  sc_core::sc_start(sc_time(500, SC_NS));
  REQUIRE(b.sm.responses.size() == 3);
  CHECK(b.stat("misses") == 1);
  CHECK(b.stat("mshr_hits") == 1);
  CHECK(b.stat("hits") == 1);
  CHECK(b.memory.addresses.size() == 1);
  // The hit answers hit_latency cycles after it was accepted (at 500 ns).
  CHECK(b.sm.response_times[2] == sc_time(510, SC_NS));
  for (Payload* gp : b.sm.responses) {
    std::uint32_t w;
    std::memcpy(&w, gp->get_data_ptr() + 8, 4);
    CHECK(w == initial_word(0x1008));
    CHECK(gp->get_response_status() == tlm::TLM_OK_RESPONSE);
  }
  CHECK(b.c1.open_transactions() == 0);
  CHECK(b.c2.open_transactions() == 0);
}

TEST_CASE("L1D: a full MSHR table stalls the next miss until a fill frees an entry",
          "[module][l1d]") {
  L1Config cfg = small_l1();
  cfg.mshr_entries = 2;
  L1Bench b(cfg);
  for (Addr a : {0x0000, 0x0080, 0x0100}) b.sm.push(make_load(b.ctx, a));
  sc_core::sc_start(sc_time(1000, SC_NS));
  REQUIRE(b.sm.responses.size() == 3);
  REQUIRE(b.memory.request_times.size() == 3);
  // The third miss reaches memory only once the first fill came back (100 ns round trip); the
  // freed entry serves it in the fill's own cycle.
  CHECK(b.memory.request_times[2] >= b.memory.request_times[0] + sc_time(100, SC_NS));
  CHECK(b.stat("rf_mshr_entry") > 0);
  CHECK(b.stat("reservation_fails") == b.stat("rf_mshr_entry"));
}

TEST_CASE("L1D: the merge limit turns further same-line loads into reservation failures",
          "[module][l1d]") {
  L1Config cfg = small_l1();
  cfg.mshr_max_merge = 2;
  L1Bench b(cfg);
  for (int i = 0; i < 3; ++i) b.sm.push(make_load(b.ctx, 0x2000));
  sc_core::sc_start(sc_time(1000, SC_NS));
  REQUIRE(b.sm.responses.size() == 3);
  CHECK(b.stat("mshr_hits") == 1);
  CHECK(b.stat("rf_mshr_merge") > 0);
  CHECK(b.stat("hits") == 1);  // the third load waited for the fill and then hit
  CHECK(b.memory.addresses.size() == 1);
}

TEST_CASE("L1D: stores write through and evict the line (write-evict)", "[module][l1d]") {
  L1Bench b(small_l1());
  b.sm.push(make_load(b.ctx, 0x3000));
  sc_core::sc_start(sc_time(300, SC_NS));
  const std::uint32_t v = 0xdeadbeef;
  b.sm.push(make_word_store(b.ctx, 0x3000, 0, v));
  sc_core::sc_start(sc_time(300, SC_NS));
  b.sm.push(make_load(b.ctx, 0x3000));
  sc_core::sc_start(sc_time(300, SC_NS));
  REQUIRE(b.sm.responses.size() == 3);
  CHECK(b.stat("stores") == 1);
  CHECK(b.stat("misses") == 2);  // the store evicted the line
  CHECK(b.memory.addresses.size() == 3);
  std::uint32_t w;
  std::memcpy(&w, b.sm.responses[2]->get_data_ptr(), 4);
  CHECK(w == v);
}

TEST_CASE("L1D: with write_hit=update a store hit updates the line and the next load hits it",
          "[module][l1d]") {
  L1Config cfg = small_l1();
  cfg.store_hit_update = true;
  L1Bench b(cfg);
  b.sm.push(make_load(b.ctx, 0x3000));
  sc_core::sc_start(sc_time(300, SC_NS));
  const std::uint32_t v = 0xfeedf00d;
  b.sm.push(make_word_store(b.ctx, 0x3000, 4, v));
  sc_core::sc_start(sc_time(300, SC_NS));
  b.sm.push(make_load(b.ctx, 0x3000));
  sc_core::sc_start(sc_time(300, SC_NS));
  REQUIRE(b.sm.responses.size() == 3);
  CHECK(b.stat("stores") == 1);
  CHECK(b.stat("store_updates") == 1);
  CHECK(b.stat("misses") == 1);
  CHECK(b.stat("hits") == 1);
  CHECK(b.memory.addresses.size() == 2);  // the fill and the written-through store
  std::uint32_t w, first;
  std::memcpy(&w, b.sm.responses[2]->get_data_ptr() + 4, 4);
  std::memcpy(&first, b.sm.responses[2]->get_data_ptr(), 4);
  CHECK(w == v);                         // the stored word, from the L1's own copy
  CHECK(first == initial_word(0x3000));  // the bytes the store did not write are intact
  CHECK(b.c1.open_transactions() == 0);
  CHECK(b.c2.open_transactions() == 0);
}

TEST_CASE("L1D: a disabled L1 forwards every load", "[module][l1d]") {
  L1Config cfg = small_l1();
  cfg.enabled = false;
  L1Bench b(cfg);
  for (int i = 0; i < 2; ++i) b.sm.push(make_load(b.ctx, 0x4000));
  sc_core::sc_start(sc_time(500, SC_NS));
  REQUIRE(b.sm.responses.size() == 2);
  CHECK(b.stat("bypassed") == 2);
  CHECK(b.stat("hits") == 0);
  CHECK(b.memory.addresses.size() == 2);
}

TEST_CASE("L1D: rank-limited bypass takes no line or MSHR and passes the reply through",
          "[module][l1d][bypass]") {
  L1Config cfg = small_l1();
  cfg.bypass = L1BypassMode::RankLimit;
  L1Bench b(cfg);
  b.l1->set_bypass_limit(1);  // rank 0 uses the L1, ranks >= 1 bypass
  std::vector<std::pair<Addr, unsigned>> seen;
  b.l1->on_load_access = [&](Addr line, const GpuExtension& e) {
    seen.emplace_back(line, e.bypass_rank);
  };
  Payload* a = make_load(b.ctx, 0x5000);
  Payload* c = make_load(b.ctx, 0x5000);
  gpu_ext(*c).bypass_rank = 1;
  b.sm.push(a);
  b.sm.push(c);
  sc_core::sc_start(sc_time(500, SC_NS));
  REQUIRE(b.sm.responses.size() == 2);
  CHECK(b.stat("misses") == 1);
  CHECK(b.stat("mshr_hits") == 0);  // the bypassing load did not merge into the MSHR
  CHECK(b.stat("bypassed") == 1);
  CHECK(b.stat("fills") == 1);
  CHECK(b.memory.addresses.size() == 2);
  CHECK(b.l1->mshr_in_use() == 0);
  for (Payload* gp : b.sm.responses) {
    std::uint32_t w;
    std::memcpy(&w, gp->get_data_ptr() + 4, 4);
    CHECK(w == initial_word(0x5004));
  }
  // Both accepted loads were shown to the observer (the generator's shadow tags see bypassers).
  CHECK(seen.size() == 2);
  // Lifting the limit: the same rank now hits the line the first load filled.
  b.l1->set_bypass_limit(~std::uint32_t{0});
  Payload* d = make_load(b.ctx, 0x5000);
  gpu_ext(*d).bypass_rank = 1;
  b.sm.push(d);
  sc_core::sc_start(sc_time(500, SC_NS));
  CHECK(b.stat("hits") == 1);
  CHECK(b.c1.open_transactions() == 0);
  CHECK(b.c2.open_transactions() == 0);
}

TEST_CASE("L1D: sockets bound directly reach the shell's own interfaces (loads, debug, DMI)",
          "[module][l1d]") {
  // No checker in between: the initiator's port and the memory's backward port are bound to
  // the shell's own ends (CacheShell::UpperFw / LowerBw), not to the simple sockets' helpers.
  SimContext ctx;
  TestInitiator sm{"sm"};
  L1Config cfg = small_l1();
  cfg.clock_hz = 1e9;
  L1DataCache l1("l1d", cfg, ctx);
  TestMemory memory{"memory", sc_time(100, SC_NS)};
  sm.socket.bind(l1.cpu);
  l1.mem.bind(memory.socket);
  sm.push(make_load(ctx, 0x1000));
  sm.push(make_load(ctx, 0x1000));
  sc_core::sc_start(sc_time(500, SC_NS));
  REQUIRE(sm.responses.size() == 2);
  CHECK(ctx.stats.total("l1d", "misses") == 1);
  CHECK(ctx.stats.total("l1d", "mshr_hits") == 1);
  // Debug transport passes through to the memory; DMI is refused with the whole range, as
  // simple_target_socket answers without a DMI callback.
  Payload* gp = make_load(ctx, 0x2000);
  gp->set_command(tlm::TLM_READ_COMMAND);
  CHECK(sm.socket->transport_dbg(*gp) == 128);
  std::uint32_t w;
  std::memcpy(&w, gp->get_data_ptr() + 8, 4);
  CHECK(w == initial_word(0x2008));
  tlm::tlm_dmi dmi;
  CHECK_FALSE(sm.socket->get_direct_mem_ptr(*gp, dmi));
  CHECK(dmi.get_start_address() == 0);
  CHECK(dmi.get_end_address() == ~sc_dt::uint64{0});
  CHECK(dmi.is_read_write_allowed());
}

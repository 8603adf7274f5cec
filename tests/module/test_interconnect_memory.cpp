// Crossbar and memory-controller module tests.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>

#include "harness.h"
#include "model/address_map.h"
#include "tlm_components/crossbar.h"
#include "tlm_components/memory_controller.h"
#include "tlm_components/protocol_checker.h"
#include "tlm_components/route_extension.h"

using namespace locsim;
using namespace locsim::test;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
AddressMapConfig map_config(std::uint32_t channels, std::uint32_t subpartitions) {
  AddressMapConfig m;
  m.channels = channels;
  m.subpartitions_per_channel = subpartitions;
  return m;
}
}  // namespace

TEST_CASE("Crossbar: routes by address, shares a cluster port, replies reach their SM",
          "[module][noc]") {
  SimContext ctx;
  CrossbarConfig cfg;
  cfg.bindings = 4;
  cfg.bindings_per_port = 2;  // two clusters of two SMs
  cfg.clock_hz = 1e9;
  const AddressMap dec(map_config(2, 2));
  Crossbar xbar("noc", cfg, dec, ctx);
  std::vector<std::unique_ptr<TestInitiator>> sms;
  std::vector<std::unique_ptr<ProtocolChecker>> chk;
  std::vector<std::unique_ptr<TestMemory>> mems;
  for (int i = 0; i < 4; ++i) {
    sms.push_back(std::make_unique<TestInitiator>(("sm" + std::to_string(i)).c_str()));
    chk.push_back(std::make_unique<ProtocolChecker>(("chk_in" + std::to_string(i)).c_str()));
    sms.back()->socket.bind(chk.back()->target);
    chk.back()->initiator.bind(xbar.in);
  }
  REQUIRE(xbar.targets() == 4);
  for (int t = 0; t < 4; ++t) {
    mems.push_back(
        std::make_unique<TestMemory>(("l2_" + std::to_string(t)).c_str(), sc_time(20, SC_NS)));
    chk.push_back(std::make_unique<ProtocolChecker>(("chk_out" + std::to_string(t)).c_str()));
    xbar.out.bind(chk.back()->target);
    chk.back()->initiator.bind(mems.back()->socket);
  }
  const int per_sm = 16;
  for (int s = 0; s < 4; ++s)
    for (int k = 0; k < per_sm; ++k)
      sms[s]->push(make_load(ctx, Addr(0x10000) + Addr(s * per_sm + k) * 128, 128,
                             static_cast<std::uint16_t>(s)));
  sc_core::sc_start(sc_time(5000, SC_NS));
  std::size_t delivered = 0;
  for (int t = 0; t < 4; ++t) {
    for (Addr a : mems[t]->addresses) CHECK(dec.subpartition(a) == static_cast<unsigned>(t));
    delivered += mems[t]->addresses.size();
  }
  CHECK(delivered == 4 * per_sm);
  for (int s = 0; s < 4; ++s) {
    REQUIRE(sms[s]->responses.size() == per_sm);
    for (Payload* gp : sms[s]->responses) CHECK(gpu_ext(*gp).sm == s);
  }
  CHECK(ctx.stats.total("noc", "requests") == 4 * per_sm);
  CHECK(ctx.stats.total("noc", "replies") == 4 * per_sm);
  // A read request is one 32 B flit; a 128 B read reply is header + data = 5 flits.
  CHECK(ctx.stats.total("noc", "request_flits") == 4 * per_sm);
  CHECK(ctx.stats.total("noc", "reply_flits") == 4 * per_sm * 5);
  // Two SMs share a port: a port injects at most one request per cycle, so the 32 requests of
  // cluster 0 need at least 32 cycles.
  sc_time last0 = sc_core::SC_ZERO_TIME;
  for (int t = 0; t < 4; ++t)
    for (std::size_t i = 0; i < mems[t]->request_times.size(); ++i)
      last0 = std::max(last0, mems[t]->request_times[i]);
  CHECK(last0 >= sc_time(32, SC_NS));
  for (auto& c : chk) CHECK(c->open_transactions() == 0);
}

TEST_CASE("Crossbar: a reply returns to the binding its request entered by, whatever its SM id",
          "[module][noc]") {
  // Two nested networks: four initiators -> `edge` (two ports of two bindings, two targets) ->
  // `core` (two bindings, four targets) -> four memories. The SM id of every request names
  // another initiator (or none): replies must still come back to the issuer.
  SimContext ctx;
  CrossbarConfig ecfg;
  ecfg.bindings = 4;
  ecfg.bindings_per_port = 2;
  ecfg.clock_hz = 1e9;
  const AddressMap emap(map_config(1, 2));
  Crossbar edge("edge", ecfg, emap, ctx);
  CrossbarConfig ccfg;
  ccfg.bindings = 2;
  ccfg.clock_hz = 1e9;
  const AddressMap cmap(map_config(2, 2));
  Crossbar core("core", ccfg, cmap, ctx);
  std::vector<std::unique_ptr<TestInitiator>> ins;
  std::vector<std::unique_ptr<ProtocolChecker>> chk;
  std::vector<std::unique_ptr<TestMemory>> mems;
  for (int i = 0; i < 4; ++i) {
    ins.push_back(std::make_unique<TestInitiator>(("ini" + std::to_string(i)).c_str()));
    chk.push_back(std::make_unique<ProtocolChecker>(("chk_in" + std::to_string(i)).c_str()));
    ins.back()->socket.bind(chk.back()->target);
    chk.back()->initiator.bind(edge.in);
  }
  for (int t = 0; t < 2; ++t) {
    chk.push_back(std::make_unique<ProtocolChecker>(("chk_link" + std::to_string(t)).c_str()));
    edge.out.bind(chk.back()->target);
    chk.back()->initiator.bind(core.in);
  }
  for (int t = 0; t < 4; ++t) {
    mems.push_back(
        std::make_unique<TestMemory>(("mem" + std::to_string(t)).c_str(), sc_time(20, SC_NS)));
    chk.push_back(std::make_unique<ProtocolChecker>(("chk_out" + std::to_string(t)).c_str()));
    core.out.bind(chk.back()->target);
    chk.back()->initiator.bind(mems.back()->socket);
  }
  REQUIRE(edge.ports() == 2);
  REQUIRE(core.ports() == 2);
  const int per = 12;
  std::map<const Payload*, int> issuer;
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < per; ++k) {
      const std::uint16_t wrong = k % 2 ? static_cast<std::uint16_t>(3 - i) : 0xbeef;
      Payload* gp = make_load(ctx, Addr(0x40000) + Addr(i * per + k) * 128, 128, wrong);
      gpu_ext(*gp).requesters.assign(1, wrong);
      issuer[gp] = i;
      ins[i]->push(gp);
    }
  sc_core::sc_start(sc_time(5000, SC_NS));
  std::size_t delivered = 0;
  for (int t = 0; t < 4; ++t) {
    for (Addr a : mems[t]->addresses) CHECK(cmap.subpartition(a) == static_cast<unsigned>(t));
    delivered += mems[t]->addresses.size();
  }
  CHECK(delivered == 4 * per);
  for (int i = 0; i < 4; ++i) {
    REQUIRE(ins[i]->responses.size() == per);
    for (Payload* gp : ins[i]->responses) {
      CHECK(issuer.at(gp) == i);
      CHECK(route_ext(*gp).depth() == 0);  // both networks popped their hop
    }
  }
  // Per-port statistics of the contract: 2 ports x 2 bindings x 12 one-flit requests, 5-flit
  // replies.
  for (std::uint32_t p = 0; p < 2; ++p) {
    CHECK(edge.port_request_flits(p) == 2 * per);
    CHECK(edge.port_reply_flits(p) == 2 * per * 5);
  }
  CHECK(edge.noc_cycles() > 0);
  for (auto& c : chk) CHECK(c->open_transactions() == 0);
}

TEST_CASE("Memory controller: row hits are served without new activates, data round-trips",
          "[module][dram]") {
  SimContext ctx;
  ctx.check_data = true;
  FunctionalMemory backing;
  MemoryControllerConfig cfg;
  cfg.sources = 1;
  cfg.clock_hz = 1e9;
  const AddressMap dec(map_config(1, 1));
  MemoryController mc("mc0", cfg, dec, ctx, &backing);
  TestInitiator l2("l2");
  ProtocolChecker chk("chk");
  l2.socket.bind(chk.target);
  chk.initiator.bind(mc.in);
  // Four lines in the same row of one bank, then a line in another row of the same bank.
  const Addr base = 0x0;
  Addr other = base;
  while (dec.decode(other).bank != dec.decode(base).bank ||
         dec.decode(other).row == dec.decode(base).row)
    other += 128;
  for (int i = 0; i < 4; ++i) l2.push(make_load(ctx, base + 128 * i));
  l2.push(make_load(ctx, other));
  sc_core::sc_start(sc_time(2000, SC_NS));
  REQUIRE(l2.responses.size() == 5);
  for (int i = 0; i < 4; ++i) REQUIRE(dec.decode(base + 128 * i).row == dec.decode(base).row);
  CHECK(ctx.stats.total("dram", "activates") == 2);
  // 5 requests x 2 atoms of 64 B; all but the first atom of each row are row hits.
  CHECK(ctx.stats.total("dram", "column_accesses") == 10);
  CHECK(ctx.stats.total("dram", "row_hits") == 8);
  std::uint32_t w;
  std::memcpy(&w, l2.responses[1]->get_data_ptr() + 4, 4);
  CHECK(w == initial_word(base + 128 + 4));
  CHECK(chk.open_transactions() == 0);
}

TEST_CASE("Memory controller: a read pays the front end, ACT + RD and the PHY, one 32 B atom",
          "[module][dram]") {
  SimContext ctx;
  MemoryControllerConfig cfg;
  cfg.sources = 1;
  cfg.clock_hz = 1e9;  // 1 ns DRAM cycles
  cfg.atom_bytes = 32;
  cfg.timing.burst_cycles = 1;
  cfg.timing.tCCD = 1;
  cfg.controller_latency = 30;
  cfg.phy_latency = 7;
  const AddressMap dec(map_config(1, 1));
  MemoryController mc("mc0", cfg, dec, ctx, nullptr);
  TestInitiator l2("l2");
  ProtocolChecker chk("chk");
  l2.socket.bind(chk.target);
  chk.initiator.bind(mc.in);
  l2.push(make_load(ctx, 0x0, 32));  // one 32 B sector, as an L2 sector miss asks
  sc_core::sc_start(sc_time(500, SC_NS));
  REQUIRE(l2.responses.size() == 1);
  // Accepted at 0: the scheduler sees it at 30 (front end), ACT at 30, RD at 30 + tRCD, data on
  // the bus tCL later for one burst cycle, then the PHY: 30 + 12 + 12 + 1 + 7 = 62 ns.
  CHECK(l2.response_times[0] == sc_time(62, SC_NS));
  CHECK(ctx.stats.total("dram", "read_bytes") == 32);  // no over-fetch
  CHECK(ctx.stats.total("dram", "column_accesses") == 1);
  CHECK(chk.open_transactions() == 0);
}

TEST_CASE("Memory controller: sectors with a gap are two atom runs, entering a full queue in parts",
          "[module][dram]") {
  // 32 B atoms; a line asking for sectors 0, 1 and 3 is the runs {0, 1} and {3} of one row. The
  // scheduler queue holds two atoms: the first line's first run fills it, the rest enters one atom
  // per column command. Timing as for atoms one at a time (the front end keeps each line's runs).
  SimContext ctx;
  MemoryControllerConfig cfg;
  cfg.sources = 1;
  cfg.clock_hz = 1e9;
  cfg.atom_bytes = 32;
  cfg.timing.burst_cycles = 1;
  cfg.timing.tCCD = 1;
  cfg.controller_latency = 30;
  cfg.phy_latency = 7;
  cfg.queue = 2;
  const AddressMap dec(map_config(1, 1));
  MemoryController mc("mc0", cfg, dec, ctx, nullptr);
  TestInitiator l2("l2");
  ProtocolChecker chk("chk");
  l2.socket.bind(chk.target);
  chk.initiator.bind(mc.in);
  Payload* a = make_load(ctx, 0x0);
  gpu_ext(*a).sector_mask = 0b1011;
  l2.push(a);
  l2.push(make_load(ctx, 0x80));  // the next line of the row: four atoms
  sc_core::sc_start(sc_time(500, SC_NS));
  REQUIRE(l2.responses.size() == 2);
  CHECK(ctx.stats.total("dram", "column_accesses") == 7);
  CHECK(ctx.stats.total("dram", "read_bytes") == 7 * 32);
  CHECK(ctx.stats.total("dram", "activates") == 1);
  // ACT at 30, RDs from 30 + tRCD = 42, one per cycle as slots free: the first line's last RD
  // at 44, the second's at 48; data tCL + one burst cycle later, then the PHY.
  CHECK(l2.response_times[0] == sc_time(44 + 12 + 1 + 7, SC_NS));
  CHECK(l2.response_times[1] == sc_time(48 + 12 + 1 + 7, SC_NS));
  CHECK(chk.open_transactions() == 0);
}

namespace {
// Two L2 sub-partitions with a backlog each, on a controller whose front end holds one 128 B
// request at a time: returns the source (0 or 1) of each response, in completion order.
std::vector<int> two_source_order(bool round_robin) {
  SimContext ctx;
  MemoryControllerConfig cfg;
  cfg.sources = 2;
  cfg.clock_hz = 1e9;
  cfg.controller_latency = 2;  // front end and scheduler queue: one 128 B request (2 atoms) each
  cfg.queue = 2;
  cfg.round_robin_sources = round_robin;
  const AddressMap dec(map_config(1, 2));
  MemoryController mc("mc0", cfg, dec, ctx, nullptr);
  TestInitiator l2a("l2a"), l2b("l2b");
  ProtocolChecker ca("ca"), cb("cb");
  l2a.socket.bind(ca.target);
  ca.initiator.bind(mc.in);
  l2b.socket.bind(cb.target);
  cb.initiator.bind(mc.in);
  // Consecutive lines of one row: every request is a row hit once the row is open, so the
  // order of service is the order of acceptance.
  for (int i = 0; i < 8; ++i) {
    l2a.push(make_load(ctx, 0x10000 + 256 * i));
    l2b.push(make_load(ctx, 0x10000 + 256 * i + 128));
  }
  sc_core::sc_start(sc_time(5000, SC_NS));
  REQUIRE(l2a.responses.size() == 8);
  REQUIRE(l2b.responses.size() == 8);
  std::vector<std::pair<sc_time, int>> t;
  for (auto& x : l2a.response_times) t.emplace_back(x, 0);
  for (auto& x : l2b.response_times) t.emplace_back(x, 1);
  std::stable_sort(t.begin(), t.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> order;
  for (auto& x : t) order.push_back(x.second);
  CHECK(ca.open_transactions() == 0);
  CHECK(cb.open_transactions() == 0);
  return order;
}
}  // namespace

TEST_CASE("Memory controller: fixed source order serves source 0's backlog first",
          "[module][dram]") {
  const std::vector<int> order = two_source_order(false);
  // Source 1's first request was accepted at once (the front end was empty); after it, source
  // 0 takes every freed slot until its backlog is gone.
  const auto first_b = std::find(order.begin() + 2, order.end(), 1);
  CHECK(first_b - order.begin() >= 8);
}

TEST_CASE("Memory controller: round-robin source order alternates the sub-partitions",
          "[module][dram]") {
  const std::vector<int> order = two_source_order(true);
  // GPGPU-Sim's memory partition: the sub-partition after the one last let in goes first.
  for (std::size_t i = 0; i + 1 < order.size(); i += 2) {
    INFO("responses " << i << " and " << i + 1);
    CHECK(order[i] + order[i + 1] == 1);
  }
}

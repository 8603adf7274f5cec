// MeshNoc module tests (seed 002 M6): routing by address and by noc_target, replies to their
// initiator, zero-load latency, back-pressure under random stress.
#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "harness.h"
#include "model/address_map.h"
#include "model/params.h"
#include "tlm_components/mesh_noc.h"
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

// Initiators and memories around one mesh, every link through a ProtocolChecker.
struct Bench {
  std::vector<std::unique_ptr<TestInitiator>> ins;
  std::vector<std::unique_ptr<TestMemory>> mems;
  std::vector<std::unique_ptr<ProtocolChecker>> chk;
  Bench(MeshNoc& noc, std::uint32_t initiators, std::uint32_t targets, sc_time mem_latency) {
    for (std::uint32_t i = 0; i < initiators; ++i) {
      ins.push_back(std::make_unique<TestInitiator>(("ini" + std::to_string(i)).c_str()));
      chk.push_back(std::make_unique<ProtocolChecker>(("chk_in" + std::to_string(i)).c_str()));
      ins.back()->socket.bind(chk.back()->target);
      chk.back()->initiator.bind(noc.in);
    }
    for (std::uint32_t t = 0; t < targets; ++t) {
      mems.push_back(
          std::make_unique<TestMemory>(("mem" + std::to_string(t)).c_str(), mem_latency));
      chk.push_back(std::make_unique<ProtocolChecker>(("chk_out" + std::to_string(t)).c_str()));
      noc.out.bind(chk.back()->target);
      chk.back()->initiator.bind(mems.back()->socket);
    }
  }
  std::uint64_t open() const {
    std::uint64_t n = 0;
    for (auto& c : chk) n += c->open_transactions();
    return n;
  }
};

std::uint32_t stored_word(TestMemory& m, Addr line, unsigned offset) {
  std::uint8_t buf[128];
  m.mem.read(line, buf, 128);
  std::uint32_t w;
  std::memcpy(&w, buf + offset, 4);
  return w;
}
}  // namespace

TEST_CASE("MeshNoc: requests go by address or noc_target and each reply reaches its initiator",
          "[module][mesh]") {
  SimContext ctx;
  MeshNocConfig cfg;
  cfg.rows = 3;
  cfg.cols = 3;
  cfg.in_node = {0, 2, 6, 8};
  cfg.in_class = {0, 0, 1, 1};
  // Four L2 sub-partitions (two per MC node, R6.3) and two cores reachable by noc_target only.
  cfg.out_node = {4, 4, 1, 1, 3, 5};
  cfg.clock_hz = 1e9;
  const AddressMap dec(map_config(2, 2));
  MeshNoc noc("noc", cfg, dec, ctx);
  Bench b(noc, 4, 6, sc_time(20, SC_NS));
  REQUIRE(noc.ports() == 4);
  REQUIRE(noc.targets() == 6);
  const int per = 24;
  std::map<const Payload*, std::uint32_t> issuer, expected_target;
  struct Store {
    Addr line;
    unsigned offset;
    std::uint32_t value;
    std::uint32_t target;
  };
  std::vector<Store> stores;
  for (std::uint32_t i = 0; i < 4; ++i)
    for (int k = 0; k < per; ++k) {
      const Addr line = Addr(0x20000) + Addr(i * per + k) * 128;
      Payload* gp;
      if (k % 3 == 1) {
        const std::uint32_t v = 0xabc00000u + i * 1000 + k;
        gp = make_word_store(ctx, line, 4 * (k % 32), v);
        stores.push_back(Store{line, 4u * (k % 32), v, 0});
      } else {
        gp = make_load(ctx, line, 128, static_cast<std::uint16_t>(i));
      }
      std::uint32_t t = dec.subpartition(line);
      if (k % 4 == 3) {  // a home core chosen by the sender
        t = 4 + (i + k) % 2;
        gpu_ext(*gp).noc_target = static_cast<std::int32_t>(t);
      }
      if (k % 3 == 1) stores.back().target = t;
      issuer[gp] = i;
      expected_target[gp] = t;
      b.ins[i]->push(gp);
    }
  sc_core::sc_start(sc_time(20000, SC_NS));
  std::size_t delivered = 0;
  for (std::uint32_t t = 0; t < 6; ++t) delivered += b.mems[t]->addresses.size();
  CHECK(delivered == 4 * per);
  std::map<const Payload*, int> responses;
  for (std::uint32_t i = 0; i < 4; ++i) {
    REQUIRE(b.ins[i]->responses.size() == per);
    for (Payload* gp : b.ins[i]->responses) {
      CHECK(issuer.at(gp) == i);
      CHECK(++responses[gp] == 1);  // exactly one response per request
      CHECK(route_ext(*gp).depth() == 0);
      CHECK(gpu_ext(*gp).noc_target == -1);  // consumed by the mesh
      CHECK(gp->get_response_status() == tlm::TLM_OK_RESPONSE);
    }
  }
  // Every store landed in the memory it was routed to.
  for (const Store& s : stores) CHECK(stored_word(*b.mems[s.target], s.line, s.offset) == s.value);
  for (std::uint32_t t = 0; t < 4; ++t)
    for (Addr a : b.mems[t]->addresses) CHECK(dec.subpartition(a) == t);
  CHECK(ctx.stats.total("noc", "requests") == 4 * per);
  CHECK(ctx.stats.total("noc", "replies") == 4 * per);
  const std::uint64_t loads = 4 * per - stores.size();
  CHECK(ctx.stats.total("noc", "read_requests") == loads);
  // Loads and stores are one request flit (8 B header + 4 B); replies: 5 flits per 128 B load,
  // one per store acknowledgement.
  CHECK(ctx.stats.total("noc", "request_flits") == 4 * per);
  CHECK(ctx.stats.total("noc", "reply_flits") == loads * 5 + stores.size());
  std::uint64_t port_req = 0, port_rep = 0;
  for (std::uint32_t p = 0; p < 4; ++p) {
    port_req += noc.port_request_flits(p);
    port_rep += noc.port_reply_flits(p);
  }
  CHECK(port_req == 4 * per);
  CHECK(port_rep == loads * 5 + stores.size());
  // Link counters add up to the flit-hops.
  CHECK(ctx.stats.total("noc_link", "request_flits") + ctx.stats.total("noc_link", "reply_flits") ==
        ctx.stats.total("noc", "link_flits"));
  CHECK(noc.request_network().idle());
  CHECK(noc.reply_network().idle());
  CHECK(b.open() == 0);
}

TEST_CASE("MeshNoc: zero-load latency is h*(router+link) + router + flits each way",
          "[module][mesh]") {
  SimContext ctx;
  MeshNocConfig cfg;
  cfg.rows = 3;
  cfg.cols = 3;
  cfg.in_node = {0};
  cfg.out_node = {8};  // 4 hops
  cfg.clock_hz = 1e9;
  cfg.router_latency = 2;
  cfg.link_latency = 1;
  const AddressMap dec(map_config(1, 1));
  MeshNoc noc("noc", cfg, dec, ctx);
  Bench b(noc, 1, 1, sc_time(10, SC_NS));
  b.ins[0]->push(make_load(ctx, 0x1000));
  sc_core::sc_start(sc_time(1000, SC_NS));
  REQUIRE(b.mems[0]->request_times.size() == 1);
  REQUIRE(b.ins[0]->response_times.size() == 1);
  // Request: 1 flit, 4 * (2 + 1) + 2 + 1 = 15 cycles; memory 10; reply: 5 flits, 4 * 3 + 2 + 5.
  CHECK(noc.zero_load_latency(0, 0, 1) == 15);
  CHECK(b.mems[0]->request_times[0] == sc_time(15, SC_NS));
  CHECK(b.ins[0]->response_times[0] == sc_time(15 + 10 + 19, SC_NS));
  CHECK(ctx.stats.total("noc", "link_flits") == 4 * 1 + 4 * 5);
  CHECK(b.open() == 0);
  CHECK_FALSE(sc_core::sc_pending_activity());  // an idle mesh schedules nothing
}

TEST_CASE("MeshNoc: random traffic with tight buffers loses nothing", "[module][mesh]") {
  SimContext ctx;
  MeshNocConfig cfg;
  cfg.rows = 4;
  cfg.cols = 4;
  cfg.in_node = {0, 1, 2, 3, 12, 13, 14, 15, 5, 10};
  cfg.in_class = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
  cfg.out_node = {6, 6, 9, 9, 4, 11};
  cfg.vcs = 2;
  cfg.vc_flits = 2;
  cfg.injection_buffer = 1;
  cfg.ejection_buffer = 1;
  cfg.clock_hz = 1e9;
  const AddressMap dec(map_config(2, 2));
  MeshNoc noc("noc", cfg, dec, ctx);
  Bench b(noc, 10, 6, sc_time(30, SC_NS));
  std::mt19937 rng(11);
  const int per = 60;
  std::map<const Payload*, std::uint32_t> issuer;
  for (std::uint32_t i = 0; i < 10; ++i)
    for (int k = 0; k < per; ++k) {
      const Addr line = Addr(rng() % 4096) * 128;
      Payload* gp = rng() % 2 ? make_load(ctx, line, 32u << (rng() % 3))
                              : make_word_store(ctx, line, 4 * (rng() % 32), rng());
      if (rng() % 3 == 0) gpu_ext(*gp).noc_target = static_cast<std::int32_t>(rng() % 6);
      issuer[gp] = i;
      b.ins[i]->push(gp);
    }
  sc_core::sc_start(sc_time(200000, SC_NS));
  std::size_t delivered = 0;
  for (auto& m : b.mems) delivered += m->addresses.size();
  CHECK(delivered == 10 * per);
  for (std::uint32_t i = 0; i < 10; ++i) {
    REQUIRE(b.ins[i]->responses.size() == per);
    for (Payload* gp : b.ins[i]->responses) CHECK(issuer.at(gp) == i);
  }
  CHECK(ctx.stats.total("noc", "requests") == 10 * per);
  CHECK(ctx.stats.total("noc", "replies") == 10 * per);
  CHECK(noc.request_network().idle());
  CHECK(noc.reply_network().idle());
  CHECK(b.open() == 0);
}

TEST_CASE("MeshNoc: debug transport follows noc_target or the address", "[module][mesh]") {
  SimContext ctx;
  MeshNocConfig cfg;
  cfg.rows = 2;
  cfg.cols = 2;
  cfg.in_node = {0};
  cfg.out_node = {3, 1, 2};
  const AddressMap dec(map_config(1, 2));
  MeshNoc noc("noc", cfg, dec, ctx);
  Bench b(noc, 1, 3, sc_time(10, SC_NS));
  for (std::uint32_t t = 0; t < 3; ++t) b.mems[t]->mem.write_word(0x2000, 100 + t);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  auto read = [&](std::int32_t target) {
    Payload* gp = make_load(ctx, 0x2000);
    gpu_ext(*gp).noc_target = target;
    b.ins[0]->socket->transport_dbg(*gp);
    CHECK(gpu_ext(*gp).noc_target == -1);
    std::uint32_t w;
    std::memcpy(&w, gp->get_data_ptr(), 4);
    return w;
  };
  CHECK(read(-1) == 100 + dec.subpartition(0x2000));
  CHECK(read(2) == 102);
  CHECK(read(1) == 101);
}

TEST_CASE("MeshNoc: parameters default to MeshNocConfig and reject bad values", "[module][mesh]") {
  {
    ParamRegistry p;
    declare_mesh_params(p);
    const MeshNocConfig c = mesh_config_from_params(p), d;
    CHECK(c.rows == d.rows);
    CHECK(c.cols == d.cols);
    CHECK(c.vcs == 4);
    CHECK(c.vc_flits == 4);
    CHECK(c.router_latency == 2);
    CHECK(c.link_latency == 1);
    CHECK(c.mc_nodes.empty());
    CHECK(c.clock_hz == d.clock_hz);
    p.set("noc.mesh_mc_nodes", " 3, 7,10 ,12", "--set");
    CHECK(mesh_config_from_params(p).mc_nodes == std::vector<std::uint32_t>{3, 7, 10, 12});
  }
  auto fails = [](const std::string& key, const std::string& value, const std::string& what) {
    ParamRegistry p;
    declare_mesh_params(p);
    p.set(key, value, "--set");
    try {
      mesh_config_from_params(p);
      FAIL("no error for " << key << "=" << value);
    } catch (const ConfigError& e) {
      const std::string msg = e.what();
      INFO(msg);
      CHECK(msg.find(key) != std::string::npos);
      CHECK(msg.find(what) != std::string::npos);
    }
  };
  fails("noc.mesh_mc_nodes", "3,x", "not a node id");
  fails("noc.mesh_mc_nodes", "3,36", "outside");
  fails("noc.mesh_mc_nodes", "3,,4", "empty entry");
  fails("noc.mesh_mc_nodes", "3,4,", "empty entry");
  fails("noc.mesh_mc_nodes", "3,3", "twice");
  fails("noc.mesh_vcs", "0", "out of range");
  fails("noc.mesh_rows", "0", "out of range");
  fails("noc.mesh_ejection_buffer", "0", "out of range");
}

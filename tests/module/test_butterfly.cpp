// Butterfly: the core-to-core work-distribution crossbar of seed 002 §5.5 (R7.2, I-10).
#include <catch2/catch.hpp>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "harness.h"
#include "tlm_components/butterfly.h"
#include "tlm_components/protocol_checker.h"
#include "tlm_components/route_extension.h"

using namespace locsim;
using namespace locsim::test;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
// A home core's side: takes at most one request per `gap` and holds at most `cap` of them (more
// are back-pressured: no END_REQ), answers each after `latency`, one response at a time.
struct SlowHome : sc_core::sc_module {
  tlm_utils::simple_target_socket<SlowHome> socket;
  TargetPort port;
  sc_time latency, gap;
  std::size_t cap;
  std::deque<std::pair<sc_time, Payload*>> pending;
  std::vector<Payload*> seen;
  std::uint64_t refused = 0;  // BEGIN_REQs and retries it could not take
  sc_time next_accept = sc_core::SC_ZERO_TIME;
  sc_core::sc_event ev;

  SlowHome(sc_core::sc_module_name n, sc_time lat, sc_time g, std::size_t c)
      : sc_module(n), socket("socket"), port("p"), latency(lat), gap(g), cap(c) {
    socket.register_nb_transport_fw(this, &SlowHome::nb_fw);
    port.bind([this](Payload& gp, tlm::tlm_phase& ph,
                     sc_core::sc_time& d) { return socket->nb_transport_bw(gp, ph, d); },
              [this](Payload& gp) { return try_take(gp); },
              [this]() { ev.notify(sc_core::SC_ZERO_TIME); });
    SC_HAS_PROCESS(SlowHome);
    SC_METHOD(run);
    sensitive << ev;
    dont_initialize();
  }
  bool try_take(Payload& gp) {
    const sc_time now = sc_core::sc_time_stamp();
    if (pending.size() >= cap || now < next_accept) {
      ++refused;
      ev.notify(now < next_accept ? next_accept - now : gap);
      return false;
    }
    next_accept = now + gap;
    seen.push_back(&gp);
    pending.emplace_back(now + latency, &gp);
    ev.notify(latency);
    return true;
  }
  void run() {
    const sc_time now = sc_core::sc_time_stamp();
    if (!port.response_busy() && !pending.empty() && pending.front().first <= now) {
      Payload* gp = pending.front().second;
      pending.pop_front();
      gp->set_response_status(tlm::TLM_OK_RESPONSE);
      port.respond(*gp);
    }
    if (Payload* held = port.held_request())
      if (try_take(*held)) port.accept_request();
    if (!port.response_busy() && !pending.empty())
      ev.notify(pending.front().first > now ? pending.front().first - now : gap);
  }
  tlm::tlm_sync_enum nb_fw(Payload& gp, tlm::tlm_phase& ph, sc_time& d) {
    return port.on_fw(gp, ph, d);
  }
};

// Home core t's requests carry t in address bits 20.. (and the issuer in bits 12..19).
Addr address(std::uint32_t issuer, std::uint32_t home, std::uint32_t k) {
  return (Addr(home) << 20) | (Addr(issuer) << 12) | (Addr(k % 32) * 128);
}
std::uint32_t home_of(Addr a) {
  return static_cast<std::uint32_t>(a >> 20);
}
}  // namespace

TEST_CASE("Butterfly: requests reach the core noc_target names and replies return to their issuer",
          "[module][butterfly]") {
  SimContext ctx;
  ButterflyConfig cfg;
  cfg.cores = 8;  // butterfly_for(8): a 3-ary 2-fly, terminal 8 unused
  cfg.clock_hz = 1e9;
  Butterfly bfly("bfly", cfg, ctx);
  REQUIRE(bfly.config().k == 3);
  REQUIRE(bfly.config().n == 2);
  REQUIRE(bfly.ports() == 8);
  REQUIRE(bfly.targets() == 8);
  std::vector<std::unique_ptr<TestInitiator>> cores;
  std::vector<std::unique_ptr<TestMemory>> homes;
  std::vector<std::unique_ptr<ProtocolChecker>> chk;
  for (int c = 0; c < 8; ++c) {
    cores.push_back(std::make_unique<TestInitiator>(("core" + std::to_string(c)).c_str()));
    chk.push_back(std::make_unique<ProtocolChecker>(("chk_in" + std::to_string(c)).c_str()));
    cores.back()->socket.bind(chk.back()->target);
    chk.back()->initiator.bind(bfly.in);
  }
  for (int c = 0; c < 8; ++c) {
    homes.push_back(
        std::make_unique<TestMemory>(("home" + std::to_string(c)).c_str(), sc_time(20, SC_NS)));
    chk.push_back(std::make_unique<ProtocolChecker>(("chk_out" + std::to_string(c)).c_str()));
    bfly.out.bind(chk.back()->target);
    chk.back()->initiator.bind(homes.back()->socket);
  }
  // Every core sends to every core (itself included) twice; the SM id names nobody.
  const int per_pair = 2;
  std::map<const Payload*, std::uint32_t> issuer;
  for (std::uint32_t c = 0; c < 8; ++c)
    for (std::uint32_t k = 0; k < 8 * per_pair; ++k) {
      const std::uint32_t home = (c + k) % 8;
      Payload* gp = make_load(ctx, address(c, home, k), 128, 0xbeef);
      gpu_ext(*gp).noc_target = static_cast<std::int32_t>(home);
      issuer[gp] = c;
      cores[c]->push(gp);
    }
  sc_core::sc_start(sc_time(10000, SC_NS));
  const std::uint64_t total = 8 * 8 * per_pair;
  std::uint64_t delivered = 0;
  for (std::uint32_t t = 0; t < 8; ++t) {
    for (Addr a : homes[t]->addresses) CHECK(home_of(a) == t);
    delivered += homes[t]->addresses.size();
  }
  CHECK(delivered == total);
  for (std::uint32_t c = 0; c < 8; ++c) {
    REQUIRE(cores[c]->responses.size() == 8 * per_pair);
    for (Payload* gp : cores[c]->responses) {
      CHECK(issuer.at(gp) == c);
      CHECK(gpu_ext(*gp).noc_target == -1);  // consumed by the network
      CHECK(route_ext(*gp).depth() == 0);
    }
  }
  // A load request is one 32 B flit (8 B header); a 128 B reply is 8 + 128 B = 5 flits.
  CHECK(ctx.stats.total("butterfly", "requests") == total);
  CHECK(ctx.stats.total("butterfly", "read_requests") == total);
  CHECK(ctx.stats.total("butterfly", "replies") == total);
  CHECK(ctx.stats.total("butterfly", "request_flits") == total);
  CHECK(ctx.stats.total("butterfly", "reply_flits") == total * 5);
  CHECK(ctx.stats.total("butterfly", "bytes") == total * 6 * 32);
  CHECK(ctx.stats.total("butterfly", "stage_flits") == total * 6 * 2);
  CHECK(ctx.stats.total("noc", "requests") == 0);  // apart from the main NoC's statistics
  for (std::uint32_t c = 0; c < 8; ++c) {
    CHECK(bfly.port_request_flits(c) == 8 * per_pair);
    CHECK(bfly.port_reply_flits(c) == 8 * per_pair * 5);
  }
  CHECK(bfly.request_network().switch_traversals() == total * 2);
  CHECK(bfly.reply_network().switch_traversals() == total * 2);
  CHECK(bfly.request_network().idle());
  CHECK(bfly.reply_network().idle());
  CHECK(bfly.noc_cycles() > 0);
  for (auto& c : chk) CHECK(c->open_transactions() == 0);
}

TEST_CASE("Butterfly: an unloaded request and its reply take the zero-load latency",
          "[module][butterfly]") {
  SimContext ctx;
  ButterflyConfig cfg;
  cfg.cores = 28;
  cfg.k = 6;  // R7.2: 28 cores + 8 MPs
  cfg.n = 2;
  cfg.switch_latency = 3;
  cfg.clock_hz = 1e9;
  Butterfly bfly("bfly", cfg, ctx);
  std::vector<std::unique_ptr<TestInitiator>> cores;
  std::vector<std::unique_ptr<TestMemory>> homes;
  std::vector<std::unique_ptr<ProtocolChecker>> chk;
  for (int c = 0; c < 28; ++c) {
    cores.push_back(std::make_unique<TestInitiator>(("core" + std::to_string(c)).c_str()));
    chk.push_back(std::make_unique<ProtocolChecker>(("chk_in" + std::to_string(c)).c_str()));
    cores.back()->socket.bind(chk.back()->target);
    chk.back()->initiator.bind(bfly.in);
    homes.push_back(
        std::make_unique<TestMemory>(("home" + std::to_string(c)).c_str(), sc_time(20, SC_NS)));
    chk.push_back(std::make_unique<ProtocolChecker>(("chk_out" + std::to_string(c)).c_str()));
    bfly.out.bind(chk.back()->target);
    chk.back()->initiator.bind(homes.back()->socket);
  }
  Payload* gp = make_load(ctx, address(3, 27, 0), 128, 3);
  gpu_ext(*gp).noc_target = 27;
  cores[3]->push(gp);
  sc_core::sc_start(sc_time(1000, SC_NS));
  // Request: accepted at cycle 0, 2 stages x 3 cycles + 1 flit. Reply: accepted at 7 + 20,
  // 2 x 3 + 5 flits.
  REQUIRE(homes[27]->request_times.size() == 1);
  CHECK(homes[27]->request_times[0] == sc_time(7, SC_NS));
  CHECK(bfly.zero_load_latency(1) == 7);
  REQUIRE(cores[3]->responses.size() == 1);
  CHECK(cores[3]->response_times[0] == sc_time(27 + 11, SC_NS));
  for (auto& c : chk) CHECK(c->open_transactions() == 0);
}

TEST_CASE("Butterfly: a stress test with back-pressure at the home cores loses nothing",
          "[module][butterfly]") {
  SimContext ctx;
  ButterflyConfig cfg;
  cfg.cores = 28;  // butterfly_for(28): 6-ary 2-fly
  cfg.input_buffer = 1;
  cfg.switch_buffer = 1;
  cfg.output_buffer = 1;
  cfg.clock_hz = 1e9;
  Butterfly bfly("bfly", cfg, ctx);
  REQUIRE(bfly.config().k == 6);
  std::vector<std::unique_ptr<TestInitiator>> cores;
  std::vector<std::unique_ptr<SlowHome>> homes;
  std::vector<std::unique_ptr<ProtocolChecker>> chk;
  for (int c = 0; c < 28; ++c) {
    cores.push_back(std::make_unique<TestInitiator>(("core" + std::to_string(c)).c_str()));
    chk.push_back(std::make_unique<ProtocolChecker>(("chk_in" + std::to_string(c)).c_str()));
    cores.back()->socket.bind(chk.back()->target);
    chk.back()->initiator.bind(bfly.in);
    // Home 0 is a hot spot and slow; the others take a request every 3 ns.
    homes.push_back(std::make_unique<SlowHome>(("home" + std::to_string(c)).c_str(),
                                               sc_time(c == 0 ? 50 : 15, SC_NS),
                                               sc_time(c == 0 ? 7 : 3, SC_NS), c == 0 ? 2 : 4));
    chk.push_back(std::make_unique<ProtocolChecker>(("chk_out" + std::to_string(c)).c_str()));
    bfly.out.bind(chk.back()->target);
    chk.back()->initiator.bind(homes.back()->socket);
  }
  std::mt19937 rng(2024);
  std::uniform_int_distribution<std::uint32_t> any(0, 27);
  std::bernoulli_distribution hot(0.2), store(0.3);
  const std::uint32_t per_core = 60;
  std::map<const Payload*, std::uint32_t> issuer, home;
  std::uint64_t store_count = 0;
  for (std::uint32_t c = 0; c < 28; ++c)
    for (std::uint32_t k = 0; k < per_core; ++k) {
      const std::uint32_t h = hot(rng) ? 0 : any(rng);
      Payload* gp = store(rng) ? make_word_store(ctx, address(c, h, k), 4 * (k % 32), k)
                               : make_load(ctx, address(c, h, k), 128, 0);
      if (gpu_ext(*gp).kind == AccessKind::Store) ++store_count;
      gpu_ext(*gp).noc_target = static_cast<std::int32_t>(h);
      issuer[gp] = c;
      home[gp] = h;
      cores[c]->push(gp);
    }
  sc_core::sc_start(sc_time(200000, SC_NS));
  const std::uint64_t total = 28 * per_core;
  std::uint64_t seen = 0;
  for (std::uint32_t t = 0; t < 28; ++t) {
    for (Payload* gp : homes[t]->seen) CHECK(home.at(gp) == t);
    seen += homes[t]->seen.size();
  }
  CHECK(seen == total);
  for (std::uint32_t c = 0; c < 28; ++c) {
    CHECK(cores[c]->queue.empty());
    REQUIRE(cores[c]->responses.size() == per_core);
    for (Payload* gp : cores[c]->responses) {
      CHECK(issuer.at(gp) == c);
      CHECK(route_ext(*gp).depth() == 0);
    }
  }
  CHECK(ctx.stats.total("butterfly", "requests") == total);
  CHECK(ctx.stats.total("butterfly", "replies") == total);
  // A word store is 8 + 4 B (1 flit) and its acknowledgement a header (1 flit).
  CHECK(ctx.stats.total("butterfly", "reply_flits") == (total - store_count) * 5 + store_count);
  CHECK(bfly.request_network().idle());
  CHECK(bfly.reply_network().idle());
  CHECK(homes[0]->seen.size() > total / 6);  // the hot spot was hot
  CHECK(homes[0]->refused > 0);              // and pushed back
  for (auto& c : chk) CHECK(c->open_transactions() == 0);
}

TEST_CASE("Butterfly: a noc_target outside the cores is an error naming the module",
          "[module][butterfly]") {
  SimContext ctx;
  CHECK_THROWS_AS(Butterfly("too_small", ButterflyConfig{40, 6, 2}, ctx), std::invalid_argument);
  ButterflyConfig cfg;
  cfg.cores = 2;
  cfg.clock_hz = 1e9;
  Butterfly bfly("work_xbar", cfg, ctx);
  TestInitiator a("a"), b("b");
  TestMemory ma("ma", sc_time(10, SC_NS)), mb("mb", sc_time(10, SC_NS));
  a.socket.bind(bfly.in);
  b.socket.bind(bfly.in);
  bfly.out.bind(ma.socket);
  bfly.out.bind(mb.socket);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  for (std::int32_t bad : {2, -1}) {
    Payload* gp = make_load(ctx, 0x1000);
    gpu_ext(*gp).noc_target = bad;
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_time d = sc_core::SC_ZERO_TIME;
    CHECK_THROWS_WITH(a.socket->nb_transport_fw(*gp, ph, d),
                      Catch::Contains("work_xbar") && Catch::Contains("home core"));
    CHECK_THROWS_WITH(a.socket->transport_dbg(*gp), Catch::Contains("work_xbar"));
  }
}

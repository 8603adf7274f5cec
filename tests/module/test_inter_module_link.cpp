// Inter-module link module tests: latency and bandwidth honoured exactly, back-pressure in both
// directions without loss, under the protocol checker. One elaboration per TEST_CASE.
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>

#include "harness.h"
#include "model/serial_channel.h"
#include "tlm_components/inter_module_link.h"
#include "tlm_components/protocol_checker.h"

using namespace locsim;
using namespace locsim::test;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
struct LinkBench {
  SimContext ctx;
  SerialChannel fwd, bwd;
  TestInitiator near{"near"};
  ProtocolChecker c1{"check_near"};
  std::unique_ptr<InterModuleLink> link;
  ProtocolChecker c2{"check_far"};
  TestMemory far;
  // Default bandwidths: a 136-byte reply takes 4 cycles, an 8-byte request 1.
  LinkBench(std::uint32_t buffer, sc_time memory_latency, double fwd_bpc = 34.0,
            double bwd_bpc = 34.0)
      : fwd(fwd_bpc), bwd(bwd_bpc), far("far", memory_latency) {
    InterModuleLinkConfig cfg;
    cfg.latency = 10;
    cfg.buffer = buffer;
    cfg.clock_hz = 1e9;
    link = std::make_unique<InterModuleLink>("link", cfg, std::vector<SerialChannel*>{&fwd},
                                             std::vector<SerialChannel*>{&bwd}, ctx);
    near.socket.bind(c1.target);
    c1.initiator.bind(link->in);
    link->out.bind(c2.target);
    c2.initiator.bind(far.socket);
  }
  std::uint64_t stat(const char* n) { return ctx.stats.total("link", n); }
};
}  // namespace

TEST_CASE("link: a load crosses in serialisation + latency each way, with its data",
          "[module][link]") {
  LinkBench b(0, sc_time(100, SC_NS));
  // Automatic buffer: 10 cycles x 34 bytes + one 136-byte packet, for the single hop.
  CHECK(b.link->buffer_bytes() == 10 * 34 + 8 + 128);
  b.near.push(make_load(b.ctx, 0x4000));
  sc_core::sc_start(sc_time(1000, SC_NS));
  REQUIRE(b.near.responses.size() == 1);
  // request: 8 bytes leave by cycle 1, arrive at 11; memory answers at 111; the 136-byte reply
  // leaves by 115 and arrives at 125.
  CHECK(b.far.request_times.at(0) == sc_time(11, SC_NS));
  CHECK(b.near.response_times.at(0) == sc_time(125, SC_NS));
  std::uint32_t w;
  std::memcpy(&w, b.near.responses[0]->get_data_ptr() + 12, 4);
  CHECK(w == initial_word(0x400c));
  CHECK(b.stat("requests") == 1);
  CHECK(b.stat("replies") == 1);
  CHECK(b.stat("request_bytes") == 8);
  CHECK(b.stat("reply_bytes") == 136);
  CHECK(b.c1.open_transactions() == 0);
  CHECK(b.c2.open_transactions() == 0);
}

TEST_CASE("link: replies are limited by the reply bandwidth", "[module][link]") {
  LinkBench b(64 * 136, sc_time(100, SC_NS));
  for (Addr a = 0; a < 20 * 128; a += 128) b.near.push(make_load(b.ctx, 0x10000 + a));
  sc_core::sc_start(sc_time(2000, SC_NS));
  REQUIRE(b.near.responses.size() == 20);
  // 20 replies of 136 bytes at 34 bytes per cycle: one every 4 cycles once the wire is busy.
  for (std::size_t i = 1; i < 20; ++i)
    CHECK(b.near.response_times[i] - b.near.response_times[i - 1] >= sc_time(3, SC_NS));
  CHECK(b.near.response_times[19] - b.near.response_times[0] >= sc_time(75, SC_NS));
  CHECK(b.bwd.bytes() == 20u * 136);
}

TEST_CASE("link: a full buffer back-pressures both sides and loses nothing", "[module][link]") {
  // 16 bytes per direction: two 8-byte requests, or one 136-byte reply (an empty direction
  // takes any packet); requests take 8 cycles on the wire, replies 34.
  LinkBench b(16, sc_time(10, SC_NS), 1.0, 4.0);
  for (Addr a = 0; a < 30 * 128; a += 128) b.near.push(make_load(b.ctx, 0x20000 + a));
  sc_core::sc_start(sc_time(20000, SC_NS));
  REQUIRE(b.near.responses.size() == 30);
  CHECK(b.far.addresses.size() == 30);
  CHECK(b.stat("requests") == 30);
  CHECK(b.stat("replies") == 30);
  for (std::size_t i = 1; i < 30; ++i)
    CHECK(b.far.request_times[i] - b.far.request_times[i - 1] >= sc_time(8, SC_NS));
  // The replies' wire is the bottleneck: 30 x 34 cycles.
  CHECK(b.near.response_times.back() >= sc_time(30 * 34, SC_NS));
  for (std::size_t i = 0; i < 30; ++i)
    CHECK(b.near.responses[i]->get_address() == 0x20000 + 128 * i);
  CHECK(b.c1.open_transactions() == 0);
  CHECK(b.c2.open_transactions() == 0);
}

TEST_CASE("link: the byte buffer bounds the replies in flight", "[module][link]") {
  // 300 bytes hold two 136-byte replies: a third waits until the first has been delivered, so
  // with a 10-cycle hop and 4 cycles of serialisation at most two replies overlap on the wire.
  LinkBench b(300, sc_time(10, SC_NS), 34.0, 34.0);
  for (Addr a = 0; a < 12 * 128; a += 128) b.near.push(make_load(b.ctx, 0x30000 + a));
  sc_core::sc_start(sc_time(5000, SC_NS));
  REQUIRE(b.near.responses.size() == 12);
  // Replies i and i + 2 are at least one full trip (4 + 10 cycles) apart.
  for (std::size_t i = 2; i < 12; ++i)
    CHECK(b.near.response_times[i] - b.near.response_times[i - 2] >= sc_time(14, SC_NS));
  CHECK(b.c1.open_transactions() == 0);
  CHECK(b.c2.open_transactions() == 0);
}

TEST_CASE("link: with the automatic buffer, replies stream at the wire's bandwidth",
          "[module][link]") {
  // Control of the test above: the bandwidth-delay product lets replies follow each other
  // about every 4 cycles once the wire is busy (at most 5 with the memory's own pacing), where
  // the 300-byte buffer needs 14 cycles per two.
  LinkBench b(0, sc_time(10, SC_NS), 34.0, 34.0);
  for (Addr a = 0; a < 12 * 128; a += 128) b.near.push(make_load(b.ctx, 0x30000 + a));
  sc_core::sc_start(sc_time(5000, SC_NS));
  REQUIRE(b.near.responses.size() == 12);
  CHECK(b.near.response_times[11] - b.near.response_times[1] <= sc_time(10 * 5, SC_NS));
}

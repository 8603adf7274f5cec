// Base-protocol machinery: the checker catches violations, ports honour annotated delays.
#include <catch2/catch.hpp>

#include "harness.h"
#include "tlm_components/protocol_checker.h"

using namespace locsim;
using namespace locsim::test;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
// A target that never accepts (no END_REQ), to provoke a second BEGIN_REQ.
struct SilentTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<SilentTarget> socket;
  explicit SilentTarget(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_nb_transport_fw(this, &SilentTarget::fw);
  }
  tlm::tlm_sync_enum fw(Payload&, tlm::tlm_phase&, sc_time&) { return tlm::TLM_ACCEPTED; }
};
struct RawInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<RawInitiator> socket;
  explicit RawInitiator(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_nb_transport_bw(this, &RawInitiator::bw);
  }
  tlm::tlm_sync_enum bw(Payload&, tlm::tlm_phase&, sc_time&) { return tlm::TLM_ACCEPTED; }
};
}  // namespace

TEST_CASE("Protocol checker: BEGIN_REQ before END_REQ of the previous request is an error",
          "[module][protocol]") {
  SimContext ctx;
  RawInitiator init("init");
  ProtocolChecker chk("check");
  SilentTarget tgt("tgt");
  init.socket.bind(chk.target);
  chk.initiator.bind(tgt.socket);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  Payload* a = make_load(ctx, 0x0);
  Payload* b = make_load(ctx, 0x80);
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d = sc_core::SC_ZERO_TIME;
  REQUIRE_NOTHROW(init.socket->nb_transport_fw(*a, ph, d));
  ph = tlm::BEGIN_REQ;
  REQUIRE_THROWS_WITH(init.socket->nb_transport_fw(*b, ph, d),
                      Catch::Contains("BEGIN_REQ before END_REQ"));
}

TEST_CASE("Protocol checker: a response to an unknown transaction is an error",
          "[module][protocol]") {
  SimContext ctx;
  RawInitiator init("init");
  ProtocolChecker chk("check");
  SilentTarget tgt("tgt");
  init.socket.bind(chk.target);
  chk.initiator.bind(tgt.socket);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  Payload* a = make_load(ctx, 0x0);
  a->set_response_status(tlm::TLM_OK_RESPONSE);
  tlm::tlm_phase ph = tlm::BEGIN_RESP;
  sc_time d = sc_core::SC_ZERO_TIME;
  REQUIRE_THROWS_WITH(tgt.socket->nb_transport_bw(*a, ph, d),
                      Catch::Contains("unknown transaction"));
}

TEST_CASE("AT ports: a request with an annotated delay is taken at now + delay",
          "[module][protocol]") {
  SimContext ctx;
  RawInitiator init("init");
  ProtocolChecker chk("check");
  TestMemory mem("mem", sc_time(5, SC_NS));
  init.socket.bind(chk.target);
  chk.initiator.bind(mem.socket);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  Payload* a = make_load(ctx, 0x100);
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d(10, SC_NS);
  init.socket->nb_transport_fw(*a, ph, d);
  sc_core::sc_start(sc_time(100, SC_NS));
  REQUIRE(mem.request_times.size() == 1);
  CHECK(mem.request_times[0] == sc_time(10, SC_NS));
}

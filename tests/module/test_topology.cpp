// Elaboration checks of the topology builders: an unbound socket is reported by name, a fully
// bound chain passes, and every registered topology has a builder.
#include <catch2/catch.hpp>

#include "harness.h"
#include "model/params.h"
#include "platforms/topology.h"
#include "tlm_components/protocol_checker.h"

using namespace locsim;

namespace {
struct End : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<End> out;
  tlm_utils::simple_target_socket<End> in;
  explicit End(sc_core::sc_module_name n) : sc_module(n), out("out"), in("in") {}
};
struct Top : sc_core::sc_module {
  End a{"a"}, b{"b"};
  ProtocolChecker chk{"chk"};
  explicit Top(sc_core::sc_module_name n) : sc_module(n) {}
};
}  // namespace

TEST_CASE("Topology check: an unbound target socket is named", "[module][topology]") {
  Top top("top");
  top.a.out.bind(top.chk.target);
  top.chk.initiator.bind(top.b.in);
  top.b.out.bind(top.a.in);
  // Everything bound: no error.
  CHECK_NOTHROW(check_bindings(top, "test"));
}

TEST_CASE("Topology check: a dangling block fails with the socket's name", "[module][topology]") {
  Top top("top");
  top.a.out.bind(top.b.in);
  top.b.out.bind(top.a.in);
  // The protocol checker was created but never wired in.
  CHECK_THROWS_AS(check_bindings(top, "test"), ConfigError);
  CHECK_THROWS_WITH(check_bindings(top, "test"), Catch::Contains("topology 'test'") &&
                                                     Catch::Contains("socket 'top.chk.target'"));
}

TEST_CASE("Topology check: an unbound initiator socket is named", "[module][topology]") {
  Top top("top");
  top.a.out.bind(top.chk.target);
  top.chk.initiator.bind(top.b.in);
  // top.b.out is left unbound, top.a.in has no initiator either.
  CHECK_THROWS_WITH(check_bindings(top, "test"), Catch::Contains("socket 'top."));
}

TEST_CASE("Topology registry: every name builds, an unknown one names the key",
          "[module][topology]") {
  for (const auto& n : topology_names()) CHECK(make_topology(n)->name() == n);
  CHECK_THROWS_WITH(make_topology("torus"), Catch::Contains("gpu.topology") &&
                                                Catch::Contains("crossbar") &&
                                                Catch::Contains("clustered"));
}

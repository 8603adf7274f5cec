// MeshFabric: the packet-level 2-D mesh of seed 002 (R6.*, T11).
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "model/mesh_fabric.h"

using namespace locsim;

namespace {
void* h(std::uintptr_t v) {
  return reinterpret_cast<void*>(v);
}

MeshFabric::Config one_terminal_per_node(std::uint32_t rows, std::uint32_t cols) {
  MeshFabric::Config c;
  c.rows = rows;
  c.cols = cols;
  for (std::uint32_t n = 0; n < rows * cols; ++n) c.terminal_node.push_back(n);
  return c;
}

// Runs the fabric event by event from `t` until `term` has a ready packet; returns that cycle.
Cycle run_until_ready(MeshFabric& m, std::uint32_t term, Cycle t) {
  for (;;) {
    m.advance(t);
    if (m.ready(term, t)) return t;
    t = m.next_event(t + 1);
    REQUIRE(t != MeshFabric::kNever);
  }
}
}  // namespace

TEST_CASE("MeshFabric: zero-load latency is h*(router+link) + router + flits (T11)", "[mesh]") {
  for (auto [rl, ll] : {std::pair<std::uint32_t, std::uint32_t>{2, 1}, {1, 2}, {3, 0}}) {
    MeshFabric::Config c = one_terminal_per_node(6, 6);
    c.router_latency = rl;
    c.link_latency = ll;
    for (std::uint32_t dst : {0u, 1u, 6u, 7u, 14u, 35u, 30u}) {
      for (std::uint32_t flits : {1u, 5u}) {
        MeshFabric m(c);
        const Cycle t0 = 100;
        m.inject(0, dst, 0, flits, h(1), t0);
        const Cycle t = run_until_ready(m, dst, t0);
        const std::uint32_t hops = m.hops(0, dst);
        INFO("router " << rl << " link " << ll << " dst " << dst << " flits " << flits);
        CHECK(t - t0 == Cycle{hops} * (rl + ll) + rl + flits);
        CHECK(t - t0 == m.zero_load_latency(hops, flits));
        CHECK(m.pop(dst) == h(1));
        CHECK(m.idle());
        CHECK(m.hop_total() == hops);
        m.advance(t + 100);
        CHECK(m.next_event(t + 100) == MeshFabric::kNever);  // an idle mesh has no events
      }
    }
  }
}

TEST_CASE("MeshFabric: XY routing goes along X first then Y and links count their flits",
          "[mesh]") {
  MeshFabric m(one_terminal_per_node(6, 6));
  CHECK(m.xy_path(0, 35) == std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 11, 17, 23, 29, 35});
  CHECK(m.xy_path(35, 0) == std::vector<std::uint32_t>{35, 34, 33, 32, 31, 30, 24, 18, 12, 6, 0});
  CHECK(m.xy_path(8, 8) == std::vector<std::uint32_t>{8});
  CHECK(m.xy_path(14, 2) == std::vector<std::uint32_t>{14, 8, 2});
  CHECK(mesh_hops(0, 35, 6) == 10);
  CHECK(mesh_hops(0, 32, 6) == 7);  // spec T6: core 0 to MC node 32
  CHECK(m.hops(1, 3) == 2);
  m.inject(0, 35, 0, 3, h(1), 0);
  run_until_ready(m, 35, 0);
  CHECK(m.link_flits(0, MeshFabric::kEast) == 3);
  CHECK(m.link_flits(4, MeshFabric::kEast) == 3);
  CHECK(m.link_flits(5, MeshFabric::kSouth) == 3);
  CHECK(m.link_flits(0, MeshFabric::kSouth) == 0);
  CHECK(m.link_flits(5, MeshFabric::kEast) == 0);
  CHECK(m.neighbour(5, MeshFabric::kEast) == MeshFabric::kNoNode);
  CHECK(m.packets() == 1);
  CHECK(m.flits() == 3);
}

TEST_CASE("MeshFabric: a full ejection queue back-pressures the network, nothing is lost",
          "[mesh]") {
  MeshFabric::Config c;
  c.rows = 1;
  c.cols = 3;
  c.terminal_node = {0, 2};
  c.vcs = 1;
  c.vc_flits = 4;
  c.injection_buffer = 4;
  c.ejection_buffer = 2;
  MeshFabric m(c);
  std::uintptr_t next = 1;
  for (Cycle t = 0; t < 200; ++t) {
    while (m.can_inject(0, 0)) m.inject(0, 1, 0, 1, h(next++), t);
    m.advance(t);
  }
  // Ejection queue (2) + the VCs at nodes 1 and 2 (4 one-flit packets each) + injection (4).
  CHECK(next - 1 == 14);
  CHECK_FALSE(m.can_inject(0, 0));
  CHECK(m.next_event(200) == MeshFabric::kNever);  // stalled: nothing until a pop
  std::uintptr_t expect = 1;
  for (Cycle t = 200; t < 400; ++t) {
    m.advance(t);
    if (m.ready(1, t)) CHECK(m.pop(1) == h(expect++));
  }
  CHECK(expect == 15);  // in order, none lost
  CHECK(m.idle());
  CHECK(m.delivered() == 14);
}

TEST_CASE("MeshFabric: a packet longer than a VC waits for an empty VC", "[mesh]") {
  MeshFabric::Config c;
  c.rows = 1;
  c.cols = 2;
  c.terminal_node = {0, 1};
  c.vcs = 1;
  c.vc_flits = 4;
  MeshFabric m(c);
  m.inject(0, 1, 0, 5, h(1), 0);
  m.inject(0, 1, 0, 5, h(2), 0);
  Cycle t = run_until_ready(m, 1, 0);
  CHECK(t == m.zero_load_latency(1, 5));
  CHECK(m.pop(1) == h(1));
  t = run_until_ready(m, 1, t);
  CHECK(m.pop(1) == h(2));
  CHECK(m.idle());
}

TEST_CASE("MeshFabric: one flow streams at link bandwidth over several VCs", "[mesh]") {
  // 5-flit packets in 4-flit VCs need an empty VC, which frees 8 cycles after the packet entered
  // (link + router + 5 flits): with one VC a flow gets 5/8 of the link, with 4 VCs all of it.
  for (std::uint32_t vcs : {1u, 4u}) {
    MeshFabric::Config c;
    c.rows = 1;
    c.cols = 2;
    c.terminal_node = {0, 1};
    c.vcs = vcs;
    c.vc_flits = 4;
    MeshFabric m(c);
    int sent = 0, got = 0;
    Cycle t = 0;
    for (; got < 100; ++t) {
      if (sent < 100 && m.can_inject(0, 0)) m.inject(0, 1, 0, 5, h(++sent), t);
      m.advance(t);
      if (m.ready(1, t)) CHECK(m.pop(1) == h(++got));
    }
    INFO("vcs " << vcs << " cycles " << t);
    if (vcs == 4)
      CHECK(t <= 100 * 5 + m.zero_load_latency(1, 5));
    else
      CHECK(t >= 100 * 8);
    CHECK(m.link_flits(0, MeshFabric::kEast) == 500);
  }
}

TEST_CASE("MeshFabric: a class blocked at its destination does not block another class", "[mesh]") {
  // Terminal 1 (class-1 sink, never drained) and terminal 2 (class-0 sink) share node 3; all
  // traffic crosses the links 0 -> 1 -> 2 -> 3.
  for (std::uint32_t classes : {2u, 1u}) {
    MeshFabric::Config c;
    c.rows = 1;
    c.cols = 4;
    c.terminal_node = {0, 3, 3};
    c.classes = classes;
    c.vcs = 2;
    c.vc_flits = 4;
    c.injection_buffer = 4;
    c.ejection_buffer = 1;
    MeshFabric m(c);
    const std::uint32_t blocked_cls = classes - 1;
    std::uintptr_t next = 1;
    for (Cycle t = 0; t < 100; ++t) {  // fill every class-1 buffer on the way
      while (m.can_inject(0, blocked_cls)) m.inject(0, 1, blocked_cls, 1, h(next++), t);
      m.advance(t);
    }
    int delivered0 = 0;
    int injected0 = 0;
    for (Cycle t = 100; t < 400; ++t) {
      if (injected0 < 20 && m.can_inject(0, 0)) {
        m.inject(0, 2, 0, 1, h(1000 + injected0), t);
        ++injected0;
      }
      m.advance(t);
      if (m.ready(2, t)) {
        m.pop(2);
        ++delivered0;
      }
    }
    INFO("classes " << classes);
    if (classes == 2) {
      CHECK(delivered0 == 20);  // class 0 flows past the stuck class-1 packets
      CHECK(m.ready(1, 400));
    } else {
      CHECK(delivered0 == 0);  // one class: stuck behind them in the injection queue
    }
  }
}

TEST_CASE("MeshFabric: 10,000 random packets are all delivered in flow order (no deadlock)",
          "[mesh]") {
  // 6x6, one terminal per node plus a second one at the 8 MC nodes, 2 classes, 4 VCs x 4 flits,
  // packets of 1 or 5 flits, consumers that stall at random.
  MeshFabric::Config c = one_terminal_per_node(6, 6);
  for (std::uint32_t n : mesh_mc_nodes(28, 8, 6, 6)) c.terminal_node.push_back(n);
  c.classes = 2;
  c.vcs = 4;
  c.vc_flits = 4;
  c.injection_buffer = 4;
  c.ejection_buffer = 2;
  MeshFabric m(c);
  const std::uint32_t terms = m.terminals();
  std::mt19937 rng(7);
  const int total = 10000;
  struct Sent {
    std::uint32_t src, dst, cls;
    std::uint64_t seq;
  };
  std::vector<Sent> sent;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint64_t> flow_seq,
      flow_seen;
  std::uint64_t flits_sent = 0;
  int delivered = 0;
  Cycle t = 0;
  for (; t < 2000000 && delivered < total; ++t) {
    for (int k = 0; k < 4 && static_cast<int>(sent.size()) < total; ++k) {
      const std::uint32_t src = rng() % terms, dst = rng() % terms, cls = rng() % 2;
      if (!m.can_inject(src, cls)) continue;
      const std::uint32_t flits = rng() % 2 ? 1 : 5;
      auto& seq = flow_seq[{src, dst, cls}];
      sent.push_back(Sent{src, dst, cls, seq++});
      flits_sent += flits;
      m.inject(src, dst, cls, flits, h(sent.size()), t);
    }
    m.advance(t);
    for (std::uint32_t d = 0; d < terms; ++d) {
      if (!m.ready(d, t) || rng() % 3 == 0) continue;
      const Sent& s = sent[reinterpret_cast<std::uintptr_t>(m.pop(d)) - 1];
      CHECK(s.dst == d);
      CHECK(s.seq == flow_seen[{s.src, s.dst, s.cls}]++);  // a flow stays in order
      ++delivered;
    }
  }
  CHECK(delivered == total);
  CHECK(m.idle());
  CHECK(m.flits() == flits_sent);
  std::uint64_t link_total = 0;
  for (std::uint32_t n = 0; n < 36; ++n)
    for (auto d : {MeshFabric::kEast, MeshFabric::kWest, MeshFabric::kNorth, MeshFabric::kSouth})
      link_total += m.link_flits(n, d);
  CHECK(link_total > 0);
  m.advance(t + 1000);
  CHECK(m.next_event(t + 1000) == MeshFabric::kNever);
}

TEST_CASE("MeshFabric: memory-partition and core node maps (R6.2, I-8)", "[mesh]") {
  CHECK(mesh_mc_nodes(28, 8, 6, 6) == std::vector<std::uint32_t>{3, 7, 10, 12, 23, 25, 28, 32});
  CHECK(mesh_mc_nodes(56, 8, 8, 8) == std::vector<std::uint32_t>{3, 15, 17, 29, 36, 47, 49, 61});
  const auto cores = mesh_core_nodes(28, 8, 6, 6);
  REQUIRE(cores.size() == 28);
  CHECK(cores[0] == 0);
  CHECK(cores[3] == 4);
  CHECK(cores[27] == 35);
  CHECK(mesh_core_nodes(56, 8, 8, 8).size() == 56);
  // Other sizes: spread along the two middle rows.
  CHECK(mesh_mc_nodes(12, 4, 4, 4) == std::vector<std::uint32_t>{5, 7, 9, 11});
  CHECK(mesh_mc_nodes(27, 9, 6, 6).size() == 9);
  CHECK_THROWS_AS(mesh_mc_nodes(30, 8, 6, 6), std::invalid_argument);
  CHECK(mesh_mc_nodes(1, 12, 6, 6).size() == 12);
  CHECK_THROWS_AS(mesh_mc_nodes(1, 13, 6, 6), std::invalid_argument);  // rows hold 2 x 6
  CHECK(mesh_core_nodes(2, std::vector<std::uint32_t>{0, 2}, 2, 2) ==
        std::vector<std::uint32_t>{1, 3});
  CHECK_THROWS_AS(mesh_core_nodes(3, std::vector<std::uint32_t>{0, 2}, 2, 2).size(),
                  std::invalid_argument);
}

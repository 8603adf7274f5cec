// The Verilated ICC merge table (rtl/icc_merge_table.sv) behind its TLM-to-pin transactor:
// directed cases of seed 001 §6.1 (allocate, merge, uncovered, full table, broadcast, write
// bypass, a reply other than the leader's freeing the entry, a reply lacking bytes leaving it,
// the side-effect-free reply probe), a long random stream in lockstep with the TLM table, and a
// lockstep run that must report a divergence. One elaboration per TEST_CASE (own process);
// operations are driven from sc_main after elaboration, as the ICC drives them from its processes.
#include <catch2/catch.hpp>

#include "tlm_components/merge_table_unit.h"

#if LOCSIM_HAVE_RTL
#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <systemc>
#include <vector>

#include "tlm_components/gpu_extension.h"
#include "tlm_components/payload_pool.h"
#include "tlm_components/rtl/icc_merge_table_transactor.h"

using namespace locsim;

namespace {

constexpr std::uint32_t kSms = 5, kFirstSm = 10;  // a clustered-platform cluster (SMs 10..14)

ByteMask sectors(unsigned first, unsigned count) {
  ByteMask m;
  m.set_range(32 * first, 32 * count);
  return m;
}

struct Bench {
  PayloadPool pool;
  std::vector<std::string> errors;
  std::unique_ptr<MergeTableUnit> table;

  explicit Bench(std::uint32_t entries) {
    table = make_rtl_merge_table("rtl_table", entries, kSms, kFirstSm, 128,
                                 [this](const std::string& m) { errors.push_back(m); });
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // complete the pin binding
  }
  IccMergeTableTransactor& rtl() { return dynamic_cast<IccMergeTableTransactor&>(*table); }

  Payload* read(std::uint32_t sm, Addr line, const ByteMask& bytes = sectors(0, 4)) {
    Payload* gp = pool.allocate();
    GpuExtension& e = gpu_ext(*gp);
    e.sm = static_cast<std::uint16_t>(kFirstSm + sm);
    e.kind = AccessKind::Load;
    e.bytes = bytes;
    gp->set_address(line);
    return gp;
  }
};

}  // namespace

TEST_CASE("icc rtl: a miss allocates the lowest free entry and a covered read merges",
          "[module][icc][rtl]") {
  Bench b(48);
  Payload* a0 = b.read(0, 0x1000);
  CHECK(b.table->lookup(*a0, 0x1000, 1) == MergeOutcome::Allocated);
  CHECK(b.table->last_entry() == 0);
  CHECK(b.table->lookup(*b.read(1, 0x2000), 0x2000, 2) == MergeOutcome::Allocated);
  CHECK(b.table->last_entry() == 1);
  CHECK(b.table->lookup(*b.read(3, 0x1000, sectors(1, 1)), 0x1000, 3) == MergeOutcome::Merged);
  CHECK(b.table->last_entry() == 0);
  CHECK(b.table->in_use() == 2);
  const std::string s = b.table->describe(0x1000);
  INFO(s);
  CHECK(s.find("entry 0 {line 0x1000") == 0);
  CHECK(s.find("sms 0 3}") != std::string::npos);
  CHECK(s.find("leader tag " + std::to_string(gpu_ext(*a0).id)) != std::string::npos);
  // One RTL clock per operation, plus the reset cycle.
  CHECK(b.rtl().clock_edges() == 4);
  CHECK(b.errors.empty());
}

TEST_CASE("icc rtl: a read needing bytes the outstanding request lacks goes unmerged",
          "[module][icc][rtl]") {
  Bench b(48);
  CHECK(b.table->lookup(*b.read(0, 0x1000, sectors(0, 1)), 0x1000, 1) == MergeOutcome::Allocated);
  CHECK(b.table->lookup(*b.read(1, 0x1000, sectors(0, 2)), 0x1000, 2) == MergeOutcome::Uncovered);
  CHECK(b.table->in_use() == 1);
  CHECK(b.table->describe(0x1000).find("sms 0}") != std::string::npos);
  CHECK(b.errors.empty());
}

TEST_CASE("icc rtl: a full table sends reads unmerged and a freed entry is reused",
          "[module][icc][rtl]") {
  Bench b(4);
  std::vector<Payload*> leaders;
  for (Addr i = 0; i < 4; ++i) {
    leaders.push_back(b.read(0, 0x100 * (i + 1)));
    CHECK(b.table->lookup(*leaders.back(), 0x100 * (i + 1), i) == MergeOutcome::Allocated);
  }
  CHECK(b.table->in_use() == 4);
  CHECK(b.table->lookup(*b.read(1, 0x900), 0x900, 5) == MergeOutcome::Full);
  CHECK(b.table->last_entry() == -1);
  // A read of a line that is in the table still merges when the table is full.
  CHECK(b.table->lookup(*b.read(2, 0x300), 0x300, 6) == MergeOutcome::Merged);
  std::vector<std::uint16_t> sms;
  std::vector<Payload*> merged;
  REQUIRE(b.table->release(*leaders[1], 0x200, 7, sms, merged));
  CHECK(b.table->last_entry() == 1);
  CHECK(b.table->in_use() == 3);
  CHECK(b.table->lookup(*b.read(1, 0x900), 0x900, 8) == MergeOutcome::Allocated);
  CHECK(b.table->last_entry() == 1);
  CHECK(b.errors.empty());
}

TEST_CASE("icc rtl: the leader's reply broadcasts to every merged requester and frees the entry",
          "[module][icc][rtl]") {
  Bench b(48);
  Payload* leader = b.read(2, 0x4000);
  REQUIRE(b.table->lookup(*leader, 0x4000, 1) == MergeOutcome::Allocated);
  Payload* m1 = b.read(4, 0x4000);
  Payload* m2 = b.read(0, 0x4000);
  Payload* m3 = b.read(4, 0x4000);  // the same SM twice: one bit, two waiting requests
  for (Payload* m : {m1, m2, m3}) REQUIRE(b.table->lookup(*m, 0x4000, 2) == MergeOutcome::Merged);
  std::vector<std::uint16_t> sms;
  std::vector<Payload*> merged;
  REQUIRE(b.table->release(*leader, 0x4000, 4, sms, merged));
  // Leader first, then the RTL bit-vector in SM order, each waiting request once.
  CHECK(sms == std::vector<std::uint16_t>{12, 10, 14, 14});
  CHECK(merged == std::vector<Payload*>{m2, m1, m3});
  CHECK(b.table->in_use() == 0);
  // The debug port still shows the freed entry's fields (only its valid bit dropped).
  CHECK(b.table->describe(0x4000).find("entry 0 (freed) {line 0x4000") == 0);
  CHECK(b.table->describe(0x4000).find("sms 0 2 4}, 0 in use") != std::string::npos);
  CHECK(b.table->describe(0x5000).find("no entry for 0x5000") == 0);
  CHECK(b.errors.empty());
}

TEST_CASE("icc rtl: any reply to the line frees the entry, not only the leader's (§6.1)",
          "[module][icc][rtl]") {
  Bench b(48);
  Payload* leader = b.read(2, 0x4000);
  REQUIRE(b.table->lookup(*leader, 0x4000, 1) == MergeOutcome::Allocated);
  Payload* m1 = b.read(4, 0x4000);
  Payload* m2 = b.read(0, 0x4000);
  for (Payload* m : {m1, m2}) REQUIRE(b.table->lookup(*m, 0x4000, 2) == MergeOutcome::Merged);
  // SM 1's read of the line went out unmerged (a full table): its reply arrives first.
  Payload* unmerged = b.read(1, 0x4000, sectors(0, 4));
  std::vector<std::uint16_t> sms;
  std::vector<Payload*> merged;
  // The probe names the same SMs and changes nothing (no clock edge).
  const std::uint64_t edges = b.rtl().clock_edges();
  REQUIRE(b.table->probe_release(*unmerged, 0x4000, 3, sms));
  CHECK(sms == std::vector<std::uint16_t>{11, 10, 14});
  CHECK(b.rtl().clock_edges() == edges);
  CHECK(b.table->in_use() == 1);
  sms.clear();
  REQUIRE(b.table->release(*unmerged, 0x4000, 3, sms, merged));
  CHECK(sms == std::vector<std::uint16_t>{11, 10, 14});
  CHECK(merged == std::vector<Payload*>{m2, m1});
  CHECK(b.table->in_use() == 0);
  // The leader's own reply finds no entry and goes to SM 12 only.
  sms.clear();
  merged.clear();
  CHECK_FALSE(b.table->probe_release(*leader, 0x4000, 4, sms));
  CHECK_FALSE(b.table->release(*leader, 0x4000, 4, sms, merged));
  CHECK(sms.empty());
  CHECK(merged.empty());
  CHECK(b.errors.empty());
}

TEST_CASE("icc rtl: a reply lacking bytes the entry's request fetches leaves the entry",
          "[module][icc][rtl]") {
  Bench b(48);
  Payload* leader = b.read(0, 0x4000, sectors(0, 2));
  REQUIRE(b.table->lookup(*leader, 0x4000, 1) == MergeOutcome::Allocated);
  REQUIRE(b.table->lookup(*b.read(3, 0x4000, sectors(1, 1)), 0x4000, 2) == MergeOutcome::Merged);
  Payload* sector0 = b.read(1, 0x4000, sectors(0, 1));  // sent unmerged, brings sector 0 only
  std::vector<std::uint16_t> sms;
  std::vector<Payload*> merged;
  CHECK_FALSE(b.table->probe_release(*sector0, 0x4000, 3, sms));
  CHECK_FALSE(b.table->release(*sector0, 0x4000, 3, sms, merged));
  CHECK(sms.empty());
  CHECK(b.table->in_use() == 1);
  REQUIRE(b.table->release(*leader, 0x4000, 4, sms, merged));
  CHECK(sms == std::vector<std::uint16_t>{10, 13});
  CHECK(b.errors.empty());
}

TEST_CASE("icc rtl: stores and atomics bypass the table and change nothing", "[module][icc][rtl]") {
  Bench b(48);
  REQUIRE(b.table->lookup(*b.read(0, 0x1000), 0x1000, 1) == MergeOutcome::Allocated);
  const std::string before = b.table->describe(0x1000);
  Payload* st = b.read(1, 0x1000);
  gpu_ext(*st).kind = AccessKind::Store;
  const std::uint64_t edges = b.rtl().clock_edges();
  b.table->bypass(*st, 0x1000, 2);
  CHECK(b.rtl().clock_edges() == edges + 1);  // the RTL saw it and answered BYPASS
  CHECK(b.table->describe(0x1000) == before);
  CHECK(b.table->in_use() == 1);
  // The store is not a requester: a later read still merges into SM 0's entry only.
  CHECK(b.table->lookup(*b.read(2, 0x1000), 0x1000, 3) == MergeOutcome::Merged);
  CHECK(b.table->describe(0x1000).find("sms 0 2}") != std::string::npos);
  CHECK(b.errors.empty());
}

namespace {

// A random stream of reads (few lines, random sectors and SMs), stores and replies of requests
// sent to the NoC, through LockstepMergeTable(RTL, TLM); every merged request must come back
// exactly once.
void random_lockstep(std::uint32_t entries, std::uint64_t ops, std::uint32_t seed) {
  PayloadPool pool;
  std::vector<std::string> divergences, errors;
  auto rtl = make_rtl_merge_table("rtl_table", entries, kSms, kFirstSm, 128,
                                  [&](const std::string& m) { errors.push_back(m); });
  LockstepMergeTable table(std::move(rtl), std::make_unique<TlmMergeTable>(entries, kFirstSm),
                           "icc0", [&](const std::string& m) { divergences.push_back(m); });
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  std::mt19937 rng(seed);
  std::vector<Payload*> sent;  // requests at the NoC, awaiting their reply
  std::uint64_t merged_in = 0, merged_out = 0, merges = 0, fulls = 0, releases = 0, bad_lists = 0,
                bad_probes = 0, foreign_releases = 0;
  std::set<Payload*> leaders;  // requests that allocated an entry
  std::vector<std::uint16_t> sms;
  std::vector<Payload*> merged;
  auto reply = [&](std::size_t i) {
    Payload* gp = sent[i];
    sent[i] = sent.back();
    sent.pop_back();
    sms.clear();
    merged.clear();
    const bool probed = table.probe_release(*gp, gp->get_address(), 0, sms);
    const std::size_t probed_sms = sms.size();
    sms.clear();
    const bool released = table.release(*gp, gp->get_address(), 0, sms, merged);
    releases += released;
    if (probed != released || probed_sms != sms.size()) ++bad_probes;
    if (released && !leaders.count(gp)) ++foreign_releases;  // §6.1: not the entry's leader
    leaders.erase(gp);
    merged_out += merged.size();
    if (sms.size() != (released ? merged.size() + 1 : 0)) ++bad_lists;
    for (Payload* m : merged) m->release();
    gp->release();
  };
  for (std::uint64_t n = 0; n < ops && divergences.empty(); ++n) {
    const unsigned dice = rng() % 100;
    if ((dice < 60 && sent.size() < 3 * entries) || sent.empty()) {
      Payload* gp = pool.allocate();
      GpuExtension& e = gpu_ext(*gp);
      e.sm = static_cast<std::uint16_t>(kFirstSm + rng() % kSms);
      const Addr line = 0x10000 + 128 * Addr(rng() % (entries + entries / 2 + 2));
      gp->set_address(line);
      if (dice < 5) {
        e.kind = AccessKind::Store;
        table.bypass(*gp, line, n);
        gp->release();
        continue;
      }
      const unsigned first = rng() % 4;
      e.bytes = rng() % 3 == 0 ? sectors(first, 1 + rng() % (4 - first)) : sectors(0, 4);
      switch (table.lookup(*gp, line, n)) {
        case MergeOutcome::Merged:
          ++merges;
          ++merged_in;
          break;
        case MergeOutcome::Full:
          ++fulls;
          sent.push_back(gp);
          break;
        case MergeOutcome::Allocated:
          leaders.insert(gp);
          sent.push_back(gp);
          break;
        default:
          sent.push_back(gp);
      }
    } else {
      reply(rng() % sent.size());
    }
  }
  while (!sent.empty() && divergences.empty()) reply(sent.size() - 1);
  INFO((divergences.empty() ? std::string("no divergence") : divergences.front()));
  CHECK(divergences.empty());
  CHECK(errors.empty());
  CHECK(table.checks() >= ops);
  CHECK(table.in_use() == 0);
  CHECK(merged_in == merged_out);
  CHECK(bad_lists == 0);
  CHECK(bad_probes == 0);
  CHECK(pool.in_use() == 0);
  // The stream reached every case.
  INFO("merges " << merges << ", releases " << releases << " (" << foreign_releases
                 << " by a reply other than the leader's), full " << fulls);
  CHECK(merges > ops / 20);
  CHECK(releases > ops / 20);
  CHECK(foreign_releases > ops / 200);
  CHECK(fulls > (entries <= 8 ? ops / 50 : 10));  // 48 entries fill only at the cap
}

}  // namespace

TEST_CASE("icc rtl: 200000 random operations on 48 entries in lockstep with the TLM table",
          "[module][icc][rtl]") {
  random_lockstep(48, 200000, 1);
}

TEST_CASE("icc rtl: 200000 random operations on a 4-entry table (mostly full) in lockstep",
          "[module][icc][rtl]") {
  random_lockstep(4, 200000, 2);
}

TEST_CASE("icc rtl: lockstep reports the first divergence with cycle, address and both states",
          "[module][icc][rtl]") {
  // The reference has one entry more than the RTL: the fifth distinct line is where they part.
  PayloadPool pool;
  std::vector<std::string> divergences;
  auto rtl = make_rtl_merge_table("rtl_table", 4, kSms, kFirstSm, 128, [](const std::string&) {});
  LockstepMergeTable table(std::move(rtl), std::make_unique<TlmMergeTable>(5, kFirstSm), "icc7",
                           [&](const std::string& m) { divergences.push_back(m); });
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  for (Addr i = 0; i < 6; ++i) {
    Payload* gp = pool.allocate();
    gpu_ext(*gp).sm = kFirstSm + 1;
    gpu_ext(*gp).bytes = sectors(0, 4);
    table.lookup(*gp, 0x80 * (i + 1), 100 + i);
  }
  REQUIRE(divergences.size() == 1);  // reported once, at the first divergence
  const std::string& d = divergences.front();
  INFO(d);
  CHECK(d.find("icc7: RTL/TLM merge-table divergence at cycle 104 on read of line 0x280") == 0);
  CHECK(d.find("RTL full entry -1, 4 in use [no entry for 0x280, 4 in use]") != std::string::npos);
  CHECK(d.find("TLM allocated entry 4, 5 in use [entry 4 {line 0x280") != std::string::npos);
  CHECK(table.diverged());
}

TEST_CASE("icc rtl: a size the build has not Verilated is a configuration error",
          "[module][icc][rtl]") {
  CHECK_THROWS_WITH(
      make_rtl_merge_table("t", 5, kSms, kFirstSm, 128, [](const std::string&) {}),
      Catch::Contains("icc.merge_entries: the RTL merge table is Verilated for 4, 48, 160"));
  CHECK_THROWS_WITH(check_rtl_merge_table(48, 33, 128), Catch::Contains("at most 32 SMs"));
  CHECK(rtl_merge_table_sizes() == std::vector<std::uint32_t>{4, 48, 160});
}

#else
TEST_CASE("icc rtl: built without Verilator, icc.model=rtl is refused", "[module][icc][rtl]") {
  CHECK_THROWS(locsim::check_rtl_merge_table(48, 5, 128));
}
#endif

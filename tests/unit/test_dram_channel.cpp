#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/dram_channel.h"

using namespace locsim;

namespace {
constexpr Cycle kNever = DramChannelModel::kNever;

DramRequest req(std::uint64_t id, std::uint32_t bank, std::uint32_t row, bool wr = false,
                std::uint32_t column = 0) {
  DramRequest r;
  r.id = id;
  r.bank = bank;
  r.row = row;
  r.column = column;
  r.is_write = wr;
  return r;
}

// Asks for the next command cycle from `from`, checks it is `expected`, checks nothing issues one
// cycle earlier (when that is still >= from), and issues at `expected`.
DramCommand step(DramChannelModel& m, Cycle from, Cycle expected) {
  const Cycle c = m.next_command_cycle(from);
  REQUIRE(c == expected);
  DramCommand cmd;
  if (expected > from) {
    const std::size_t q = m.queued();
    CHECK_FALSE(m.issue(expected - 1, cmd));
    CHECK(m.queued() == q);
  }
  REQUIRE(m.issue(expected, cmd));
  CHECK(cmd.cycle == expected);
  return cmd;
}
}  // namespace

TEST_CASE("DramChannelModel: construction and timing validation", "[dram]") {
  DramTiming t;
  CHECK_NOTHROW(DramChannelModel(t, 16, 32));
  CHECK_THROWS_AS(DramChannelModel(t, 0, 32), std::invalid_argument);
  CHECK_THROWS_AS(DramChannelModel(t, 16, 0), std::invalid_argument);
  DramTiming bad = t;
  bad.tRAS = 41;  // > tRC 40
  CHECK_THROWS_WITH(bad.validate(), Catch::Matchers::Contains("tRAS"));
  CHECK_THROWS_AS(DramChannelModel(bad, 16, 32), std::invalid_argument);
  bad = t;
  bad.tCL = 0;
  CHECK_THROWS_AS(bad.validate(), std::invalid_argument);
  bad = t;
  bad.burst_cycles = 0;
  CHECK_THROWS_AS(bad.validate(), std::invalid_argument);
}

TEST_CASE("DramChannelModel: empty queue never issues, queue capacity and can_accept", "[dram]") {
  DramChannelModel m(DramTiming{}, 4, 2);
  DramCommand cmd;
  CHECK(m.next_command_cycle(0) == kNever);
  CHECK(m.next_command_cycle(12345) == kNever);
  CHECK_FALSE(m.issue(0, cmd));
  CHECK(m.can_accept());
  m.enqueue(req(1, 0, 0));
  CHECK(m.can_accept());
  m.enqueue(req(2, 0, 0));
  CHECK_FALSE(m.can_accept());
  CHECK(m.queued() == 2);
  // ACT does not remove a request ...
  cmd = step(m, 0, 0);
  CHECK(cmd.type == DramCommandType::Activate);
  CHECK_FALSE(m.can_accept());
  // ... a column command does.
  cmd = step(m, 1, 12);
  CHECK(cmd.type == DramCommandType::Read);
  CHECK(cmd.request_id == 1);
  CHECK(m.queued() == 1);
  CHECK(m.can_accept());
  // A late query returns `now` when a command is already legal.
  CHECK(m.next_command_cycle(100) == 100);
}

TEST_CASE("DramChannelModel: ACT -> RD respects tRCD, read data timing", "[dram]") {
  DramChannelModel m(DramTiming{}, 4, 8);  // tRCD 12, tCL 12, burst 2
  m.enqueue(req(7, 2, 5));
  DramCommand c = step(m, 0, 0);
  CHECK(c.type == DramCommandType::Activate);
  CHECK(c.bank == 2);
  CHECK(c.row == 5);
  c = step(m, 1, 12);  // 0 + tRCD
  CHECK(c.type == DramCommandType::Read);
  CHECK(c.bank == 2);
  CHECK(c.row == 5);
  CHECK(c.request_id == 7);
  CHECK_FALSE(c.row_hit);    // needed its own ACT
  CHECK(c.data_done == 26);  // 12 + tCL 12 + burst 2
  CHECK(m.queued() == 0);
  CHECK(m.next_command_cycle(13) == kNever);
  CHECK(m.activates() == 1);
  CHECK(m.row_hits() == 0);
}

TEST_CASE("DramChannelModel: FR-FCFS serves a younger row hit before an older row miss", "[dram]") {
  DramTiming t;
  t.tRAS = 10;  // PRE becomes legal at 14 (after the first read), together with the hit
  DramChannelModel m(t, 4, 8);
  m.enqueue(req(1, 0, 0));
  CHECK(step(m, 0, 0).type == DramCommandType::Activate);
  DramCommand c = step(m, 1, 12);
  CHECK(c.request_id == 1);
  // Older miss to row 1 of bank 0, then a younger hit to the open row 0.
  m.enqueue(req(2, 0, 1));
  m.enqueue(req(3, 0, 0));
  // At 14 both the miss's PRE (next_pre = max(0+tRAS, 12+burst) = 14) and the hit's RD
  // (12 + max(tCCD, burst) = 14) are legal: the hit goes first.
  c = step(m, 13, 14);
  CHECK(c.type == DramCommandType::Read);
  CHECK(c.request_id == 3);
  CHECK(c.row_hit);
  // Then the miss: the hit's RD pushed PRE to 14 + burst = 16; ACT at max(0 + tRC, 16 + tRP) = 40.
  c = step(m, 15, 16);
  CHECK(c.type == DramCommandType::Precharge);
  CHECK(c.bank == 0);
  CHECK(c.row == 0);  // the row being closed
  c = step(m, 17, 40);
  CHECK(c.type == DramCommandType::Activate);
  CHECK(c.row == 1);
  c = step(m, 41, 52);
  CHECK(c.type == DramCommandType::Read);
  CHECK(c.request_id == 2);
  CHECK_FALSE(c.row_hit);
  CHECK(m.row_hits() == 1);
  CHECK(m.activates() == 2);
  CHECK(m.precharges() == 1);
}

TEST_CASE("DramChannelModel: the row is not closed while queued requests still hit it", "[dram]") {
  DramChannelModel m(DramTiming{}, 4, 8);
  m.enqueue(req(1, 0, 0));
  m.enqueue(req(2, 0, 1));  // miss behind
  m.enqueue(req(3, 0, 0));  // hit
  m.enqueue(req(4, 0, 0));  // hit
  CHECK(step(m, 0, 0).type == DramCommandType::Activate);
  // Hits in arrival order, every tCCD = burst = 2.
  DramCommand c = step(m, 1, 12);
  CHECK(c.request_id == 1);
  c = step(m, 13, 14);
  CHECK(c.request_id == 3);
  c = step(m, 15, 16);
  CHECK(c.request_id == 4);
  // Only now may the row close: tRAS from the ACT at 0 -> 28.
  c = step(m, 17, 28);
  CHECK(c.type == DramCommandType::Precharge);
}

TEST_CASE("DramChannelModel: oldest request first among ACTs and among row hits", "[dram]") {
  DramChannelModel m(DramTiming{}, 4, 8);
  m.enqueue(req(1, 3, 9));
  m.enqueue(req(2, 1, 4));
  DramCommand c = step(m, 0, 0);
  CHECK(c.type == DramCommandType::Activate);
  CHECK(c.bank == 3);  // the oldest request, not the lowest bank
  c = step(m, 1, 6);   // tRRD
  CHECK(c.type == DramCommandType::Activate);
  CHECK(c.bank == 1);
  c = step(m, 7, 12);
  CHECK(c.request_id == 1);
  c = step(m, 13, 18);  // bank 1 ACT at 6 + tRCD
  CHECK(c.request_id == 2);
}

TEST_CASE("DramChannelModel: requests leaving from the middle keep the others' age order",
          "[dram]") {
  // Row hits of bank 0 leave from between the misses of bank 1; a request enqueued into a freed
  // slot is still the youngest, and a full queue refuses an enqueue.
  DramChannelModel m(DramTiming{}, 4, 4);
  m.enqueue(req(1, 0, 5));
  m.enqueue(req(2, 1, 7));
  m.enqueue(req(3, 0, 5));
  m.enqueue(req(4, 1, 8));
  CHECK_THROWS_AS(m.enqueue(req(9, 2, 0)), std::logic_error);
  CHECK(step(m, 0, 0).bank == 0);  // ACT bank 0 row 5 (oldest)
  DramCommand c = step(m, 1, 6);   // ACT bank 1 row 7 (tRRD)
  CHECK((c.type == DramCommandType::Activate && c.row == 7));
  CHECK(step(m, 7, 12).request_id == 1);  // hits of row 5, oldest first
  m.enqueue(req(5, 0, 5));                // into request 1's slot, behind request 4
  CHECK(step(m, 13, 14).request_id == 3);
  CHECK(step(m, 15, 16).request_id == 5);  // bank 0's hits before bank 1's (not legal: tRCD)
  CHECK(step(m, 17, 18).request_id == 2);  // bank 1 row 7 at 6 + tRCD
  CHECK(m.queued() == 1);                  // request 4 (row 8) waits for PRE and ACT
  c = step(m, 19, 34);                     // PRE of bank 1 at its ACT + tRAS
  CHECK(c.type == DramCommandType::Precharge);
}

TEST_CASE("DramChannelModel: ACT -> ACT same bank respects tRC", "[dram]") {
  DramTiming t;
  t.tRAS = 10;
  t.tRP = 5;
  t.tRC = 40;
  DramChannelModel m(t, 4, 8);
  m.enqueue(req(1, 0, 0));
  m.enqueue(req(2, 0, 1));
  CHECK(step(m, 0, 0).type == DramCommandType::Activate);
  CHECK(step(m, 1, 12).type == DramCommandType::Read);
  // PRE at max(tRAS 10, RD 12 + burst 2) = 14; ACT at max(0 + tRC 40, 14 + tRP 5) = 40.
  CHECK(step(m, 13, 14).type == DramCommandType::Precharge);
  const DramCommand c = step(m, 15, 40);
  CHECK(c.type == DramCommandType::Activate);
  CHECK(c.row == 1);
}

TEST_CASE("DramChannelModel: PRE -> ACT respects tRP", "[dram]") {
  DramTiming t;
  t.tRAS = 20;
  t.tRC = 20;
  t.tRP = 12;
  DramChannelModel m(t, 4, 8);
  m.enqueue(req(1, 0, 0));
  m.enqueue(req(2, 0, 1));
  CHECK(step(m, 0, 0).type == DramCommandType::Activate);
  CHECK(step(m, 1, 12).type == DramCommandType::Read);
  // PRE at max(tRAS 20, 14) = 20; ACT at max(tRC 20, 20 + tRP 12) = 32.
  CHECK(step(m, 13, 20).type == DramCommandType::Precharge);
  CHECK(step(m, 21, 32).type == DramCommandType::Activate);
}

TEST_CASE("DramChannelModel: ACT -> ACT different banks respects tRRD", "[dram]") {
  DramChannelModel m(DramTiming{}, 4, 8);  // tRRD 6
  m.enqueue(req(1, 0, 0));
  m.enqueue(req(2, 1, 0));
  m.enqueue(req(3, 2, 0));
  CHECK(step(m, 0, 0).bank == 0);
  DramCommand c = step(m, 1, 6);
  CHECK(c.type == DramCommandType::Activate);
  CHECK(c.bank == 1);
  c = step(m, 7, 12);  // ACT bank 2 (6 + 6) and RD bank 0 (0 + 12) both legal: the RD first
  CHECK(c.type == DramCommandType::Read);
  CHECK(c.bank == 0);
  c = step(m, 13, 13);
  CHECK(c.type == DramCommandType::Activate);
  CHECK(c.bank == 2);
}

TEST_CASE("DramChannelModel: ACT -> PRE respects tRAS", "[dram]") {
  DramChannelModel m(DramTiming{}, 4, 8);  // tRAS 28
  m.enqueue(req(1, 0, 0));
  m.enqueue(req(2, 0, 1));
  CHECK(step(m, 0, 0).type == DramCommandType::Activate);
  CHECK(step(m, 1, 12).type == DramCommandType::Read);
  const DramCommand c = step(m, 13, 28);  // not 14 (RD + burst)
  CHECK(c.type == DramCommandType::Precharge);
  CHECK(step(m, 29, 40).type == DramCommandType::Activate);  // tRC 40 = 28 + tRP 12
}

TEST_CASE("DramChannelModel: RD -> RD respects tCCD and the burst length", "[dram]") {
  SECTION("tCCD 4 > burst 2") {
    DramTiming t;
    t.tCCD = 4;
    DramChannelModel m(t, 4, 8);
    m.enqueue(req(1, 0, 0, false, 0));
    m.enqueue(req(2, 0, 0, false, 64));
    m.enqueue(req(3, 1, 0, false, 0));
    step(m, 0, 0);  // ACT bank 0
    step(m, 1, 6);  // ACT bank 1
    CHECK(step(m, 7, 12).request_id == 1);
    DramCommand c = step(m, 13, 16);  // 12 + tCCD, although bank 1's RD (18) is later anyway
    CHECK(c.request_id == 2);
    CHECK(c.data_done == 16 + 12 + 2);
    c = step(m, 17, 20);  // bank 1 ready at 18, but tCCD from 16 -> 20
    CHECK(c.request_id == 3);
    CHECK(c.bank == 1);
  }
  SECTION("burst 4 > tCCD 1") {
    DramTiming t;
    t.tCCD = 1;
    t.burst_cycles = 4;
    DramChannelModel m(t, 4, 8);
    m.enqueue(req(1, 0, 0));
    m.enqueue(req(2, 0, 0));
    step(m, 0, 0);
    CHECK(step(m, 1, 12).data_done == 12 + 12 + 4);
    const DramCommand c = step(m, 13, 16);  // data bus busy for 4 cycles
    CHECK(c.data_done == 16 + 12 + 4);
  }
}

TEST_CASE("DramChannelModel: write data end -> PRE respects tWR", "[dram]") {
  DramChannelModel m(DramTiming{}, 4, 8);
  m.enqueue(req(1, 0, 0, true));
  m.enqueue(req(2, 0, 1, false));
  step(m, 0, 0);
  DramCommand c = step(m, 1, 12);
  CHECK(c.type == DramCommandType::Write);
  CHECK(c.data_done == 18);  // 12 + tWL 4 + burst 2
  // PRE at max(tRAS 28, 18 + tWR 12 = 30) = 30.
  c = step(m, 13, 30);
  CHECK(c.type == DramCommandType::Precharge);
  // ACT at max(tRC 40, 30 + tRP 12 = 42) = 42.
  CHECK(step(m, 31, 42).type == DramCommandType::Activate);
}

TEST_CASE("DramChannelModel: read/write bus turnarounds (tWTR, tRTW)", "[dram]") {
  SECTION("WR -> RD: tWTR from the end of the write data") {
    DramChannelModel m(DramTiming{}, 4, 8);
    m.enqueue(req(1, 0, 0, true));
    m.enqueue(req(2, 0, 0, false));
    step(m, 0, 0);
    CHECK(step(m, 1, 12).data_done == 18);
    const DramCommand c = step(m, 13, 23);  // 18 + tWTR 5
    CHECK(c.type == DramCommandType::Read);
    CHECK(c.row_hit);
  }
  SECTION("RD -> WR: write data starts tRTW after the read data") {
    DramChannelModel m(DramTiming{}, 4, 8);
    m.enqueue(req(1, 0, 0, false));
    m.enqueue(req(2, 0, 0, true));
    step(m, 0, 0);
    CHECK(step(m, 1, 12).data_done == 26);
    // WR data start = cmd + tWL 4 >= 26 + tRTW 2 -> cmd 24.
    const DramCommand c = step(m, 13, 24);
    CHECK(c.type == DramCommandType::Write);
    CHECK(c.data_done == 30);
  }
}

// ---------------------------------------------------------------------------------------------
// Randomised stress test with an independent timing checker.

namespace {
struct Checker {
  DramTiming t;
  std::uint32_t nbanks;
  bool one_cmd_per_cycle;

  struct BankState {
    bool open = false;
    std::uint32_t row = 0;
    bool has_act = false, has_pre = false;
    Cycle act = 0, pre = 0;
    bool rd_since_act = false, wr_since_act = false;
    Cycle last_rd = 0, last_wr_end = 0;
    bool accessed = false;
  };
  std::vector<BankState> b;
  bool has_cmd = false, has_act_any = false, has_col = false;
  Cycle last_cmd = 0, last_act_any = 0, last_col = 0;
  std::uint32_t last_act_bank = 0;
  bool has_rd_data = false, has_wr_data = false;
  Cycle last_rd_end = 0, last_wr_end = 0, bus_end = 0;

  std::map<std::uint64_t, DramRequest> queued;
  std::set<std::uint64_t> completed;
  std::uint64_t acts = 0, pres = 0, hits = 0, reads = 0, writes = 0;
  std::vector<std::string> violations;

  Checker(const DramTiming& tt, std::uint32_t n, bool one)
      : t(tt), nbanks(n), one_cmd_per_cycle(one), b(n) {}

  void fail(const DramCommand& c, const std::string& what) {
    if (violations.size() >= 20) return;
    std::ostringstream s;
    s << "cycle " << c.cycle << " type " << int(c.type) << " bank " << c.bank << " row " << c.row
      << ": " << what;
    violations.push_back(s.str());
  }
  void expect(bool ok, const DramCommand& c, const char* what) {
    if (!ok) fail(c, what);
  }

  void enqueued(const DramRequest& r) { queued[r.id] = r; }

  void command(const DramCommand& c) {
    if (has_cmd) {
      expect(c.cycle >= last_cmd, c, "commands out of time order");
      if (one_cmd_per_cycle) expect(c.cycle > last_cmd, c, "two commands in one cycle");
    }
    has_cmd = true;
    last_cmd = c.cycle;
    if (c.bank >= nbanks) return fail(c, "bank out of range");
    BankState& s = b[c.bank];
    switch (c.type) {
      case DramCommandType::Activate: {
        ++acts;
        expect(!s.open, c, "ACT to an open bank");
        if (s.has_pre) expect(c.cycle >= s.pre + t.tRP, c, "tRP violated (PRE -> ACT)");
        if (s.has_act) expect(c.cycle >= s.act + t.tRC, c, "tRC violated (ACT -> ACT same bank)");
        if (has_act_any && last_act_bank != c.bank)
          expect(c.cycle >= last_act_any + t.tRRD, c, "tRRD violated (ACT -> ACT other bank)");
        bool wanted = false;
        for (auto& kv : queued) wanted |= kv.second.bank == c.bank && kv.second.row == c.row;
        expect(wanted, c, "ACT of a row no queued request needs");
        // FR-FCFS: a closed bank opens the row of its oldest request (ids grow with arrival).
        for (auto& kv : queued)
          if (kv.second.bank == c.bank) {
            expect(kv.second.row == c.row, c, "ACT of a row other than the oldest request's");
            break;
          }
        s.open = true;
        s.row = c.row;
        s.has_act = true;
        s.act = c.cycle;
        s.rd_since_act = s.wr_since_act = false;
        s.accessed = false;
        has_act_any = true;
        last_act_any = c.cycle;
        last_act_bank = c.bank;
        break;
      }
      case DramCommandType::Precharge: {
        ++pres;
        expect(s.open, c, "PRE to a closed bank");
        expect(c.row == s.row, c, "PRE reports a row other than the open one");
        expect(c.cycle >= s.act + t.tRAS, c, "tRAS violated (ACT -> PRE)");
        if (s.wr_since_act)
          expect(c.cycle >= s.last_wr_end + t.tWR, c, "tWR violated (write data end -> PRE)");
        if (s.rd_since_act) expect(c.cycle >= s.last_rd + t.burst_cycles, c, "RD -> PRE too early");
        bool hit_pending = false, miss_pending = false;
        for (auto& kv : queued) {
          if (kv.second.bank != c.bank) continue;
          (kv.second.row == s.row ? hit_pending : miss_pending) = true;
        }
        expect(!hit_pending, c, "PRE closes a row that queued requests still hit");
        expect(miss_pending, c, "PRE with no queued request needing another row");
        s.open = false;
        s.has_pre = true;
        s.pre = c.cycle;
        break;
      }
      case DramCommandType::Read:
      case DramCommandType::Write: {
        const bool rd = c.type == DramCommandType::Read;
        (rd ? reads : writes) += 1;
        auto it = queued.find(c.request_id);
        if (it == queued.end()) {
          if (completed.count(c.request_id)) return fail(c, "request completed twice");
          return fail(c, "column command for an unknown request");
        }
        const DramRequest r = it->second;
        // FR-FCFS: among a bank's hits of one kind (same legality), the oldest goes first; and
        // across banks, an older hit of the same kind (the channel-wide limits are the same) in a
        // bank open for tRCD was legal too, so it went first.
        for (auto& kv : queued) {
          if (kv.first >= r.id) break;
          const DramRequest& o = kv.second;
          expect(!(o.bank == r.bank && o.row == r.row && o.is_write == r.is_write), c,
                 "a younger row hit served before an older one of the same bank and kind");
          const BankState& ob = b[o.bank];
          expect(!(o.is_write == r.is_write && ob.open && ob.row == o.row &&
                   c.cycle >= ob.act + t.tRCD),
                 c, "a younger row hit served before an older legal one of another bank");
        }
        queued.erase(it);
        completed.insert(c.request_id);
        expect(r.bank == c.bank && r.row == c.row, c, "column command to the wrong bank/row");
        expect(r.is_write == !rd, c, "read/write mismatch");
        expect(s.open && s.row == c.row, c, "column command to a row that is not open");
        expect(c.cycle >= s.act + t.tRCD, c, "tRCD violated (ACT -> RD/WR)");
        if (has_col) expect(c.cycle >= last_col + t.tCCD, c, "tCCD violated");
        const Cycle start = c.cycle + (rd ? t.tCL : t.tWL);
        const Cycle end = start + t.burst_cycles;
        expect(c.data_done == end, c, "data_done wrong");
        expect(start >= bus_end, c, "data bus overlap");
        if (rd && has_wr_data)
          expect(c.cycle >= last_wr_end + t.tWTR, c, "tWTR violated (write data end -> RD)");
        if (!rd && has_rd_data)
          expect(start >= last_rd_end + t.tRTW, c, "tRTW violated (read data end -> write data)");
        expect(c.row_hit == s.accessed, c, "row_hit flag wrong");
        if (c.row_hit) ++hits;
        s.accessed = true;
        if (rd) {
          s.rd_since_act = true;
          s.last_rd = c.cycle;
          has_rd_data = true;
          last_rd_end = end;
        } else {
          s.wr_since_act = true;
          s.last_wr_end = end;
          has_wr_data = true;
          last_wr_end = end;
        }
        bus_end = std::max(bus_end, end);
        has_col = true;
        last_col = c.cycle;
        break;
      }
    }
  }
};

struct StressConfig {
  DramTiming t;
  std::uint32_t banks;
  std::uint32_t used_banks;
  std::uint32_t rows;
  std::uint32_t queue;
  unsigned max_gap;
  bool one_cmd_per_cycle;
  std::uint64_t seed;
};

void run_stress(const StressConfig& sc, std::size_t n) {
  std::mt19937_64 rng(sc.seed);
  // Requests with non-decreasing arrival cycles; rows with locality so both hits and misses occur.
  std::vector<DramRequest> in(n);
  std::vector<std::uint32_t> last_row(sc.used_banks, 0);
  Cycle at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    at += rng() % (sc.max_gap + 1);
    DramRequest& r = in[i];
    r.id = 1000 + i;
    r.bank = static_cast<std::uint32_t>(rng() % sc.used_banks);
    if (rng() % 100 < 60)
      r.row = last_row[r.bank];
    else
      r.row = static_cast<std::uint32_t>(rng() % sc.rows);
    last_row[r.bank] = r.row;
    r.column = static_cast<std::uint32_t>(rng() % 32) * 64;
    r.is_write = rng() % 100 < 30;
    r.arrival = at;
  }

  DramChannelModel m(sc.t, sc.banks, sc.queue);
  Checker chk(sc.t, sc.banks, sc.one_cmd_per_cycle);
  std::size_t next_in = 0;
  Cycle now = 0;
  std::size_t iterations = 0, failed_issues = 0, early_issues = 0, cache_mismatches = 0,
              hint_mismatches = 0;
  const std::size_t bound = 10 * n + 100;
  bool bounded = true;
  while (true) {
    if (++iterations > bound) {
      bounded = false;
      break;
    }
    while (next_in < n && in[next_in].arrival <= now && m.can_accept()) {
      DramRequest r = in[next_in++];
      r.arrival = now;
      m.enqueue(r);
      chk.enqueued(r);
    }
    const Cycle c = m.next_command_cycle(now);
    {
      // The cached earliest command cycles agree with a fresh scan of the banks.
      DramChannelModel fresh = m;
      fresh.drop_cache();
      if (fresh.next_command_cycle(now) != c) ++cache_mismatches;
    }
    const Cycle arrival = next_in < n && m.can_accept() ? in[next_in].arrival : kNever;
    if (c == kNever && arrival == kNever) break;
    if (c != kNever && c < now) {
      ++failed_issues;
      break;
    }
    if (arrival <= c) {  // wake up for the arrival first, then ask again
      now = arrival;
      continue;
    }
    // next_command_cycle is the earliest cycle: nothing can issue before it (a failed issue()
    // changes nothing, so one copy probes every earlier cycle).
    if (c > now) {
      DramChannelModel probe = m;
      probe.drop_cache();  // issue() decides by its own scan, not by next_command_cycle's
      DramCommand dummy;
      for (Cycle e = c - 1, k = 0; e >= now && k < 64; --e, ++k) {
        if (probe.issue(e, dummy)) {
          ++early_issues;
          break;
        }
        if (e == 0) break;
      }
    }
    now = c;
    // The same command without the ripe hints (the hit lists scanned afresh).
    DramChannelModel scanned = m;
    scanned.drop_cache();
    DramCommand expect;
    const bool expect_ok = scanned.issue(now, expect);
    DramCommand cmd;
    if (!m.issue(now, cmd)) {  // next_command_cycle promised a command at this cycle
      ++failed_issues;
      break;
    }
    if (!expect_ok || expect.type != cmd.type || expect.bank != cmd.bank ||
        expect.request_id != cmd.request_id)
      ++hint_mismatches;
    if (cmd.cycle != now) chk.fail(cmd, "command stamped with another cycle");
    chk.command(cmd);
    if (sc.one_cmd_per_cycle) now = c + 1;
  }

  INFO("seed " << sc.seed << " one_cmd_per_cycle " << sc.one_cmd_per_cycle << " final cycle " << now
               << " iterations " << iterations);
  std::string first;
  for (const auto& v : chk.violations) first += v + "\n";
  INFO("violations:\n" << first);
  CHECK(bounded);
  CHECK(failed_issues == 0);
  CHECK(cache_mismatches == 0);
  CHECK(hint_mismatches == 0);
  CHECK(early_issues == 0);
  CHECK(chk.violations.empty());
  CHECK(next_in == n);
  CHECK(chk.completed.size() == n);
  CHECK(chk.queued.empty());
  CHECK(m.queued() == 0);
  CHECK(chk.reads + chk.writes == n);
  // The model's own counters agree with what was observed.
  CHECK(m.activates() == chk.acts);
  CHECK(m.precharges() == chk.pres);
  CHECK(m.row_hits() == chk.hits);
  // The stimulus exercised hits, misses and conflicts.
  CHECK(chk.hits > n / 10);
  CHECK(chk.pres > n / 20);
  CHECK(chk.writes > n / 10);
}
}  // namespace

TEST_CASE("DramChannelModel: randomised traffic never violates timing and always progresses",
          "[dram][stress]") {
  DramTiming odd;  // tWL > tCL, tCCD < burst, short tRRD: different constraints bind
  odd.tCL = 7;
  odd.tWL = 9;
  odd.tRP = 5;
  odd.tRC = 25;
  odd.tRAS = 15;
  odd.tRCD = 6;
  odd.tRRD = 1;
  odd.tCCD = 1;
  odd.tWR = 3;
  odd.tWTR = 2;
  odd.tRTW = 4;
  odd.burst_cycles = 4;

  DramTiming slow_ccd;
  slow_ccd.tCCD = 5;
  slow_ccd.tRTW = 0;
  slow_ccd.tWTR = 0;

  // An ACT's row hits become legal before the next column command may issue (tRCD < tCCD): the
  // hit remembered for that command must not pass over them.
  DramTiming short_rcd;
  short_rcd.tRCD = 1;
  short_rcd.tCCD = 6;
  short_rcd.tRRD = 1;

  const StressConfig cfgs[] = {
      // timing, banks, used banks, rows, queue, max gap, one command per cycle (owner), seed
      {DramTiming{}, 16, 6, 4, 16, 6, true, 1}, {DramTiming{}, 16, 6, 4, 16, 6, false, 2},
      {DramTiming{}, 8, 3, 8, 32, 1, true, 3},  // saturated: queue mostly full
      {DramTiming{}, 4, 4, 2, 1, 3, true, 4},   // one-entry queue
      {odd, 8, 5, 6, 12, 4, true, 5},           {odd, 8, 5, 6, 12, 4, false, 6},
      {slow_ccd, 4, 2, 3, 8, 2, true, 7},       {short_rcd, 8, 6, 4, 16, 2, true, 8},
      {short_rcd, 8, 6, 4, 16, 2, false, 9},
  };
  for (const StressConfig& sc : cfgs) run_stress(sc, 5000);
}

TEST_CASE("DramChannelModel: a second command bus lets an ACT go out beside a row hit's RD",
          "[dram]") {
  // Bank 0 streams row hits (tCCD = burst = 1, as on HBM); bank 1 waits for an ACT. With one
  // command bus the ACT waits until no RD is legal; with separate row and column buses it issues
  // in the first cycle, next to a RD.
  DramTiming t;
  t.tCCD = 1;
  t.burst_cycles = 1;
  auto setup = [&](DramChannelModel& m) {
    m.enqueue(req(1, 0, 5));
    DramCommand cmd;
    REQUIRE(m.issue(0, cmd));  // ACT bank 0
    CHECK(cmd.type == DramCommandType::Activate);
    for (std::uint64_t i = 0; i < 8; ++i) m.enqueue(req(10 + i, 0, 5));
    m.enqueue(req(99, 1, 7));
  };
  const Cycle first_rd = t.tRCD;  // bank 0's first RD
  const Cycle act1 = std::max<Cycle>(first_rd, t.tRRD);
  {
    DramChannelModel m(t, 16, 32);
    setup(m);
    DramCommand cmd;
    REQUIRE(m.issue(act1, cmd, DramBus::Any));
    CHECK(cmd.type == DramCommandType::Read);          // the row hit wins the one bus
    CHECK_FALSE(m.issue(act1, cmd, DramBus::Column));  // tCCD: no second RD this cycle
  }
  {
    DramChannelModel m(t, 16, 32);
    setup(m);
    DramCommand col, row;
    REQUIRE(m.issue(act1, col, DramBus::Column));
    CHECK(col.type == DramCommandType::Read);
    REQUIRE(m.issue(act1, row, DramBus::Row));
    CHECK(row.type == DramCommandType::Activate);
    CHECK(row.bank == 1);
    CHECK_FALSE(m.issue(act1, row, DramBus::Row));  // tRRD: one ACT
  }
  {
    // The row bus never issues a RD, the column bus never an ACT.
    DramChannelModel m(t, 16, 32);
    m.enqueue(req(1, 2, 3));
    DramCommand cmd;
    CHECK_FALSE(m.issue(0, cmd, DramBus::Column));
    REQUIRE(m.issue(0, cmd, DramBus::Row));
    CHECK(cmd.type == DramCommandType::Activate);
    CHECK_FALSE(m.issue(t.tRCD, cmd, DramBus::Row));
    REQUIRE(m.issue(t.tRCD, cmd, DramBus::Column));
    CHECK(cmd.type == DramCommandType::Read);
  }
}

TEST_CASE("DramChannelModel: enqueue_run and extend are n single enqueues", "[dram]") {
  // Two channels get the same traffic, one as runs of requests that differ only in their
  // columns (a cache line's atoms), the other one request at a time; every issued command and
  // every wake-up answer must agree, also when the queue fills and a run enters in parts.
  DramTiming hbm;  // the HBM-like spacing of the SAXPY platform: a RD per cycle
  hbm.tCCD = 1;
  hbm.burst_cycles = 1;
  for (const DramTiming& t : {DramTiming{}, hbm})
    for (std::uint32_t capacity : {3u, 8u, 32u}) {
      DramChannelModel runs(t, 8, capacity), single(t, 8, capacity);
      std::mt19937 rng(capacity * 7 + t.tCCD);
      std::uint64_t id = 0;
      std::uint32_t issued = 0, hits = 0, parts = 0, extends = 0;
      // The run being queued: only as many of its requests as fit go in, the rest (later
      // columns) by extend() in later cycles, before any other run, as the controller's front
      // end does with a full queue.
      DramRequest r;
      std::uint32_t n = 0;
      bool part = false;
      for (Cycle now = 0; now < 4000; ++now) {
        if (n == 0 && rng() % 3 == 0) {
          // A run of 1-4 requests of one bank and row.
          r = req(++id, rng() % 8, rng() % 3, rng() % 4 == 0, 64 * (rng() % 4));
          n = 1 + rng() % 4;
          part = false;
        }
        if (n && runs.room()) {
          const std::uint32_t k = std::min(n, runs.room());
          if (k < n) ++parts;
          if (part) {
            runs.extend(r, k);
            ++extends;
          } else {
            runs.enqueue_run(r, k, 32);
          }
          for (std::uint32_t j = 0; j < k; ++j) {
            DramRequest s = r;
            s.column += 32 * j;
            single.enqueue(s);
          }
          r.column += 32 * k;
          n -= k;
          part = true;
        }
        REQUIRE(runs.queued() == single.queued());
        REQUIRE(runs.next_command_cycle(now) == single.next_command_cycle(now));
        DramCommand a, b;
        const bool ia = runs.issue(now, a), ib = single.issue(now, b);
        REQUIRE(ia == ib);
        if (!ia) continue;
        ++issued;
        hits += a.row_hit;
        CHECK(a.type == b.type);
        CHECK(a.bank == b.bank);
        CHECK(a.row == b.row);
        CHECK(a.cycle == b.cycle);
        CHECK(a.request_id == b.request_id);
        CHECK(a.row_hit == b.row_hit);
        CHECK(a.data_done == b.data_done);
      }
      CHECK(runs.row_hits() == single.row_hits());
      CHECK(runs.activates() == single.activates());
      CHECK(issued > 500);
      CHECK(hits > 100);
      if (capacity == 3) CHECK(parts > 0);
      if (capacity == 3) CHECK(extends > 0);
    }
  DramChannelModel m(DramTiming{}, 4, 4);
  CHECK_THROWS_AS(m.enqueue_run(req(1, 0, 0), 0, 32), std::logic_error);
  CHECK_THROWS_AS(m.enqueue_run(req(1, 0, 0), 5, 32), std::logic_error);
  m.enqueue_run(req(1, 0, 0), 4, 32);
  CHECK_FALSE(m.can_accept());
  CHECK(m.room() == 0);
}

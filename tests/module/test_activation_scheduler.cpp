// ActivationScheduler: the canonical order of same-time block activations (one elaboration per
// test process).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tlm_components/activation_scheduler.h"
#include "tlm_components/sim_time.h"

using namespace locsim;
using sc_core::SC_NS;
using sc_core::sc_time;
using Stage = Activation::Stage;

namespace {

struct Log {
  std::vector<std::string> runs;
  std::vector<std::uint64_t> times;         // ns, the block's time (sim_time())
  std::vector<std::uint64_t> kernel_times;  // ns, SystemC's kernel time (sc_time_stamp())
};

// A block with one process: it logs its runs and calls `body` (if set).
struct Block : sc_core::sc_module {
  Activation act;
  Log& log;
  std::function<void()> body;
  Block(sc_core::sc_module_name n, Stage s, Log& l) : sc_module(n), act(s), log(l) {
    act.bind<&Block::run>(this, name());
  }
  void run() {
    log.runs.push_back(basename());
    log.times.push_back(sim_time().value() / 1000);  // ps -> ns
    log.kernel_times.push_back(sc_core::sc_time_stamp().value() / 1000);
    if (body) body();
  }
};

// A plain SystemC process that makes requests from outside the scheduler at 10 ns (or when
// `ev` is notified again).
struct Driver : sc_core::sc_module {
  std::function<void()> at10;
  sc_core::sc_event ev;
  explicit Driver(sc_core::sc_module_name n, int at_ns = 10) : sc_module(n) {
    SC_HAS_PROCESS(Driver);
    SC_METHOD(run);
    sensitive << ev;
    dont_initialize();
    ev.notify(at_ns, SC_NS);
  }
  void run() { at10(); }
};

}  // namespace

TEST_CASE(
    "scheduler: same-time activations run by stage, then elaboration order, "
    "whatever the order of the requests") {
  Log log;
  // Elaborated out of stage order on purpose.
  Block core0("core0", Stage::kCore, log), mem("mem", Stage::kMemory, log),
      core1("core1", Stage::kCore, log), noc("noc", Stage::kNetwork, log),
      l2("l2", Stage::kL2Tag, log);
  Driver d("driver");
  d.at10 = [&]() {
    for (Block* b : {&core1, &noc, &core0, &l2, &mem}) b->act.notify(sc_core::SC_ZERO_TIME);
  };
  sc_core::sc_start();
  CHECK(log.runs == std::vector<std::string>{"mem", "l2", "noc", "core0", "core1"});
  CHECK(log.times == std::vector<std::uint64_t>{10, 10, 10, 10, 10});
  CHECK(ActivationScheduler::get().passes() == 1);
}

TEST_CASE(
    "scheduler: a request for now runs in the next pass once its process has run, and "
    "merges into the current pass before") {
  Log log;
  Block a("a", Stage::kMemory, log), b("b", Stage::kCore, log);
  int a_runs = 0;
  a.body = [&]() {
    if (++a_runs == 1) b.act.notify(sc_core::SC_ZERO_TIME);  // b is due now already: merged
  };
  b.body = [&]() { a.act.notify(sc_core::SC_ZERO_TIME); };  // a has run: next pass
  // Requests made during elaboration run at time 0.
  a.act.notify_at(0);
  b.act.notify_at(0);
  sc_core::sc_start();
  CHECK(log.runs == std::vector<std::string>{"a", "b", "a"});
  CHECK(log.times == std::vector<std::uint64_t>{0, 0, 0});
  CHECK(ActivationScheduler::get().passes() == 2);
}

TEST_CASE("scheduler: the earliest request wins, and a superseded later one does not run") {
  Log log;
  Block x("x", Stage::kNetwork, log), y("y", Stage::kCore, log);
  Driver d("driver");
  d.at10 = [&]() {
    x.act.notify(sc_time(5, SC_NS));  // 15 ns
    x.act.notify(sc_time(2, SC_NS));  // 12 ns: replaces 15
    x.act.notify(sc_time(7, SC_NS));  // ignored: 12 is earlier
    y.act.notify(sc_time(5, SC_NS));  // 15 ns: y alone then
  };
  sc_core::sc_start();
  CHECK(log.runs == std::vector<std::string>{"x", "y"});
  CHECK(log.times == std::vector<std::uint64_t>{12, 15});
  CHECK_FALSE(sc_core::sc_pending_activity());
}

TEST_CASE("scheduler: a process may ask for its own stale time again after running") {
  Log log;
  Block x("x", Stage::kNetwork, log);
  int runs = 0;
  x.body = [&]() {
    if (++runs == 1) x.act.notify(sc_time(10, SC_NS));  // 20 ns, where a stale bit from 30 ns...
  };
  Driver d("driver");
  d.at10 = [&]() {
    x.act.notify(sc_time(20, SC_NS));     // 30 ns
    x.act.notify(sc_core::SC_ZERO_TIME);  // 10 ns: the 30 ns request becomes stale
  };
  sc_core::sc_start();
  // ... is not run: only the 10 and 20 ns requests are live.
  CHECK(log.times == std::vector<std::uint64_t>{10, 20});
}

TEST_CASE(
    "scheduler: hundreds of distinct pending times, entered and left in any order, run in time "
    "order, each once") {
  // More distinct times than the pending-time index starts with (it grows), times leaving it
  // from the middle of its probe runs, and requests that find their time already pending.
  Log log;
  constexpr unsigned kBlocks = 300;
  std::vector<std::unique_ptr<Block>> blocks;
  std::vector<unsigned> runs(kBlocks, 0);
  std::vector<std::uint64_t> expected;  // ns
  for (unsigned i = 0; i < kBlocks; ++i) {
    blocks.push_back(std::make_unique<Block>(("b" + std::to_string(i)).c_str(), Stage::kCore, log));
    const std::uint64_t first = 1 + (i * 37) % 211, step = 1 + (i * 53) % 97;
    for (unsigned k = 0; k < 3; ++k) expected.push_back(10 + first + k * step);
    blocks.back()->body = [&runs, &blocks, i, step]() {
      if (++runs[i] < 3) blocks[i]->act.notify(sc_time(static_cast<double>(step), SC_NS));
    };
  }
  Driver d("driver");
  d.at10 = [&]() {
    for (unsigned i = 0; i < kBlocks; ++i)
      blocks[i]->act.notify(sc_time(static_cast<double>(1 + (i * 37) % 211), SC_NS));
  };
  sc_core::sc_start();
  std::sort(expected.begin(), expected.end());
  CHECK(std::is_sorted(log.times.begin(), log.times.end()));
  CHECK(log.times == expected);
  CHECK(std::all_of(runs.begin(), runs.end(), [](unsigned r) { return r == 3; }));
  // One pass per distinct time: a request always found its time if it was pending.
  CHECK(
      ActivationScheduler::get().passes() ==
      static_cast<std::uint64_t>(std::unique(expected.begin(), expected.end()) - expected.begin()));
  CHECK_FALSE(sc_core::sc_pending_activity());
}

TEST_CASE("scheduler: an order seed replaces the stage order by a fixed pseudo-random one") {
  Log log;
  std::vector<std::unique_ptr<Block>> blocks;
  const Stage stages[] = {Stage::kMemory,    Stage::kL2Tag, Stage::kNetwork,  Stage::kL1Response,
                          Stage::kL1Request, Stage::kCore,  Stage::kDispatch, Stage::kCoalescer};
  for (int i = 0; i < 8; ++i)
    blocks.push_back(std::make_unique<Block>(("b" + std::to_string(i)).c_str(), stages[i], log));
  ActivationScheduler::get().set_order_seed(1);
  Driver d("driver");
  d.at10 = [&]() {
    for (auto& b : blocks) b->act.notify(sc_core::SC_ZERO_TIME);
  };
  sc_core::sc_start();
  REQUIRE(log.runs.size() == 8);
  std::vector<std::string> sorted = log.runs;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<std::string>{"b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7"});
  // Seed 0 would run b0, b1, b2, b7, b3, b4, b5, b6 (by stage).
  CHECK(log.runs != std::vector<std::string>{"b0", "b1", "b2", "b7", "b3", "b4", "b5", "b6"});
}

TEST_CASE(
    "scheduler: run-ahead steps through its due times without the kernel, each activation "
    "sees its own time, and the kernel's time catches up at the end") {
  Log log;
  Block x("x", Stage::kNetwork, log), y("y", Stage::kCore, log);
  int x_runs = 0;
  x.body = [&]() {
    CHECK(sim_time_ahead_by() == sim_time() - sc_core::sc_time_stamp());
    if (++x_runs < 3) x.act.notify(sc_time(10, SC_NS));  // 20, 30 ns
  };
  Driver d("driver");
  d.at10 = [&]() {
    x.act.notify(sc_core::SC_ZERO_TIME);
    y.act.notify(sc_time(15, SC_NS));  // 25 ns
  };
  ActivationScheduler::get().set_run_ahead_limit(Activation::kNever);
  sc_core::sc_start();
  CHECK(log.runs == std::vector<std::string>{"x", "x", "y", "x"});
  CHECK(log.times == std::vector<std::uint64_t>{10, 20, 25, 30});
  // One wake-up by the kernel at 10 ns; 20, 25 and 30 ns reached by the scheduler itself.
  CHECK(log.kernel_times == std::vector<std::uint64_t>{10, 10, 10, 10});
  CHECK(ActivationScheduler::get().steps_ahead() == 3);
  CHECK(sc_core::sc_time_stamp() == sc_time(30, SC_NS));
  CHECK(sim_time() == sc_time(30, SC_NS));
  CHECK_FALSE(sc_core::sc_pending_activity());
}

TEST_CASE(
    "scheduler: run-ahead stops before another SystemC process's event and at the limit, "
    "so the order of everything is unchanged") {
  Log log;
  Block x("x", Stage::kNetwork, log), y("y", Stage::kCore, log), z("z", Stage::kMemory, log);
  int x_runs = 0;
  x.body = [&]() {
    if (++x_runs < 4) x.act.notify(sc_time(10, SC_NS));  // 20, 30, 40 ns
  };
  Driver d("driver"), other("other", 22);
  d.at10 = [&]() {
    x.act.notify(sc_core::SC_ZERO_TIME);
    y.act.notify(sc_time(15, SC_NS));  // 25 ns
  };
  other.at10 = [&]() {
    // At 22 ns the activations of 10 and 20 ns have run, those of 25 ns not yet.
    log.runs.push_back("other");
    log.times.push_back(sc_core::sc_time_stamp().value() / 1000);
    log.kernel_times.push_back(log.times.back());
    z.act.notify(sc_core::SC_ZERO_TIME);
  };
  ActivationScheduler::get().set_run_ahead_limit(sc_time(30, SC_NS).value());
  sc_core::sc_start();
  CHECK(log.runs == std::vector<std::string>{"x", "x", "other", "z", "y", "x", "x"});
  CHECK(log.times == std::vector<std::uint64_t>{10, 20, 22, 22, 25, 30, 40});
  // 20 ns ahead of the kernel; 25 and 30 ns ahead of the kernel's wake at 22 ns; 40 ns is
  // beyond the limit: the kernel wakes the scheduler there.
  CHECK(log.kernel_times == std::vector<std::uint64_t>{10, 10, 22, 22, 22, 22, 40});
  CHECK(ActivationScheduler::get().steps_ahead() == 3);
}

namespace {
// x runs at 10 ns and, reached ahead of the kernel, at 20 ns, where it notifies `target` 5 ns
// later (with the run-ahead offset or without it); y is due at 30 ns.
struct LateEventRig {
  Log log;
  Block x{"x", Stage::kNetwork, log}, y{"y", Stage::kCore, log};
  Driver d{"driver"}, target{"target", 1000};
  int x_runs = 0;
  explicit LateEventRig(bool with_offset) {
    x.body = [this, with_offset]() {
      if (++x_runs == 1) {
        x.act.notify(sc_time(10, SC_NS));  // 20 ns, reached ahead of the kernel
      } else {
        target.ev.cancel();
        // With the offset 25 ns; without it the kernel's 15 ns, before the block's 20 ns.
        target.ev.notify(sc_time(5, SC_NS) +
                         (with_offset ? sim_time_ahead_by() : sc_core::SC_ZERO_TIME));
      }
    };
    d.at10 = [this]() {
      x.act.notify(sc_core::SC_ZERO_TIME);
      y.act.notify(sc_time(20, SC_NS));  // 30 ns: the scheduler would step there next
    };
    ActivationScheduler::get().set_run_ahead_limit(Activation::kNever);
  }
};
}  // namespace

TEST_CASE(
    "scheduler: a SystemC event notified during a run-ahead fires at the block's time plus the "
    "delay when the run-ahead offset is added") {
  LateEventRig rig(true);
  std::uint64_t fired_ns = 0;
  rig.target.at10 = [&]() { fired_ns = sc_core::sc_time_stamp().value() / 1000; };
  sc_core::sc_start();
  CHECK(fired_ns == 25);
  CHECK(rig.log.times == std::vector<std::uint64_t>{10, 20, 30});
  // The event at 25 ns ends the run-ahead: the kernel runs it, then wakes the scheduler at 30.
  CHECK(rig.log.kernel_times == std::vector<std::uint64_t>{10, 10, 30});
}

TEST_CASE(
    "scheduler: a SystemC event notified during a run-ahead without the offset is an error, "
    "not a silent reordering") {
  LateEventRig rig(false);
  rig.target.at10 = []() {};
  CHECK_THROWS_WITH(sc_core::sc_start(), Catch::Contains("run-ahead offset"));
}

TEST_CASE(
    "scheduler: the run-ahead asks the kernel again after a block notified a SystemC event "
    "several steps in, so the event still comes before the next due time") {
  // x runs at 10 ns (the kernel's wake) and at 20, 30 and 40 ns reached ahead of the kernel,
  // which was asked only before the first step; at 40 ns it notifies `target` 5 ns later; y is
  // due at 50 ns.
  Log log;
  Block x("x", Stage::kNetwork, log), y("y", Stage::kCore, log);
  Driver d("driver"), target("target", 1000);
  int x_runs = 0;
  x.body = [&]() {
    if (++x_runs < 4) {
      x.act.notify(sc_time(10, SC_NS));
    } else {
      target.ev.cancel();
      target.ev.notify(sc_time(5, SC_NS) + sim_time_ahead_by());
    }
  };
  target.at10 = [&]() {
    log.runs.push_back("target");
    log.times.push_back(sc_core::sc_time_stamp().value() / 1000);
    log.kernel_times.push_back(log.times.back());
  };
  d.at10 = [&]() {
    x.act.notify(sc_core::SC_ZERO_TIME);
    y.act.notify(sc_time(40, SC_NS));  // 50 ns
  };
  ActivationScheduler::get().set_run_ahead_limit(Activation::kNever);
  sc_core::sc_start();
  CHECK(log.runs == std::vector<std::string>{"x", "x", "x", "x", "target", "y"});
  CHECK(log.times == std::vector<std::uint64_t>{10, 20, 30, 40, 45, 50});
  CHECK(log.kernel_times == std::vector<std::uint64_t>{10, 10, 10, 10, 45, 50});
  CHECK(ActivationScheduler::get().steps_ahead() == 3);
}

TEST_CASE(
    "scheduler: without a notification the run-ahead keeps the kernel's answer across steps "
    "and still stops before another process's event") {
  // Asked once (before the step to 20 ns), the kernel's next event (other, 35 ns) bounds the
  // steps to 20 and 30 ns; the kernel wakes the scheduler at 40 ns, after other.
  Log log;
  Block x("x", Stage::kNetwork, log);
  Driver d("driver"), other("other", 35);
  int x_runs = 0;
  x.body = [&]() {
    if (++x_runs < 4) x.act.notify(sc_time(10, SC_NS));
  };
  other.at10 = [&]() {
    log.runs.push_back("other");
    log.times.push_back(sc_core::sc_time_stamp().value() / 1000);
    log.kernel_times.push_back(log.times.back());
  };
  d.at10 = [&]() { x.act.notify(sc_core::SC_ZERO_TIME); };
  ActivationScheduler::get().set_run_ahead_limit(Activation::kNever);
  sc_core::sc_start();
  CHECK(log.runs == std::vector<std::string>{"x", "x", "x", "other", "x"});
  CHECK(log.times == std::vector<std::uint64_t>{10, 20, 30, 35, 40});
  CHECK(log.kernel_times == std::vector<std::uint64_t>{10, 10, 10, 35, 40});
  CHECK(ActivationScheduler::get().steps_ahead() == 2);
}

namespace {
// a at 10 ns asks for b and c now (c was due at 15 ns) and for itself at 20 ns; c, in the next
// pass, asks for a (due at 20 ns) and b (run already) now: a third pass.
void check_next_passes(bool run_ahead) {
  Log log;
  Block a("a", Stage::kMemory, log), b("b", Stage::kNetwork, log), c("c", Stage::kCore, log);
  int a_runs = 0, c_runs = 0;
  a.body = [&]() {
    if (++a_runs > 1) return;
    c.act.notify(sc_core::SC_ZERO_TIME);  // next pass; its 15 ns request is stale
    b.act.notify(sc_core::SC_ZERO_TIME);  // next pass, before c by stage
    a.act.notify(sc_time(10, SC_NS));
  };
  c.body = [&]() {
    if (++c_runs > 1) return;
    a.act.notify(sc_core::SC_ZERO_TIME);
    b.act.notify(sc_core::SC_ZERO_TIME);
  };
  Driver d("driver");
  d.at10 = [&]() {
    a.act.notify(sc_core::SC_ZERO_TIME);
    c.act.notify(sc_time(5, SC_NS));
  };
  if (run_ahead) ActivationScheduler::get().set_run_ahead_limit(Activation::kNever);
  sc_core::sc_start();
  CHECK(log.runs == std::vector<std::string>{"a", "b", "c", "a", "b"});
  CHECK(log.times == std::vector<std::uint64_t>{10, 10, 10, 10, 10});
  // Three passes at 10 ns, and one each at 15 and 20 ns that find only stale bits.
  CHECK(ActivationScheduler::get().passes() == 5);
  CHECK(a.act.pending() == Activation::kNever);
  CHECK_FALSE(sc_core::sc_pending_activity());
}
}  // namespace

TEST_CASE(
    "scheduler: requests for the time being run make up its next pass, in slot order, whether "
    "the process has run this pass or is due later") {
  check_next_passes(false);
}

TEST_CASE("scheduler: the same next passes with run-ahead") {
  check_next_passes(true);
}

TEST_CASE(
    "scheduler: a next pass asked for in the pass that stops the simulation stays pending, and "
    "later times are still entered") {
  Log log;
  Block a("a", Stage::kMemory, log), b("b", Stage::kCore, log);
  b.body = [&]() {
    a.act.notify(sc_core::SC_ZERO_TIME);  // the next pass, not run: sc_stop() came first
    b.act.notify(sc_time(5, SC_NS));
    sc_core::sc_stop();
  };
  Driver d("driver");
  d.at10 = [&]() { b.act.notify(sc_core::SC_ZERO_TIME); };
  ActivationScheduler::get().set_run_ahead_limit(Activation::kNever);
  sc_core::sc_start();
  CHECK(log.runs == std::vector<std::string>{"b"});
  CHECK(ActivationScheduler::get().passes() == 1);
  CHECK(a.act.pending() == sc_time(10, SC_NS).value());
  CHECK(b.act.pending() == sc_time(15, SC_NS).value());
}

namespace {
// kN processes (150: three words per bucket, the pass's word loop; 100: two words, read without
// it), each running four times at its own mix of times, some asking for a next pass: many
// pending times created and run, so buckets are freed and reused. The log must match a plain
// reference of the rules: by time, then pass, then rank.
void check_many_processes(bool run_ahead, int kN = 150) {
  constexpr int kRuns = 4;
  const Stage stages[] = {Stage::kCore, Stage::kMemory, Stage::kNetwork};
  Log log;
  std::vector<std::unique_ptr<Block>> blocks;
  std::vector<int> runs(kN, 0);
  auto next_delay_ns = [](int i, int k) { return std::uint64_t(1 + (i * 13 + k) % 5); };
  auto wants_next_pass = [](int i, int k) { return i % 10 == 0 && k == 1; };
  for (int i = 0; i < kN; ++i) {
    blocks.push_back(
        std::make_unique<Block>(("b" + std::to_string(i)).c_str(), stages[(i * 7) % 3], log));
    Block* b = blocks.back().get();
    b->body = [&, i, b]() {
      const int k = ++runs[i];
      if (k >= kRuns) return;
      if (wants_next_pass(i, k))
        b->act.notify(sc_core::SC_ZERO_TIME);
      else
        b->act.notify(sc_time(static_cast<double>(next_delay_ns(i, k)), SC_NS));
    };
  }
  Driver d("driver");
  d.at10 = [&]() {
    for (int i = 0; i < kN; ++i) blocks[i]->act.notify(sc_time(i % 7, SC_NS));
  };
  if (run_ahead) ActivationScheduler::get().set_run_ahead_limit(Activation::kNever);
  sc_core::sc_start();

  // Reference: rank = (stage, elaboration index).
  auto rank = [&](int i) { return std::make_pair(static_cast<int>(stages[(i * 7) % 3]), i); };
  std::vector<std::uint64_t> pending(kN);
  for (int i = 0; i < kN; ++i) pending[i] = 10 + i % 7;
  std::vector<int> ref_runs(kN, 0);
  std::vector<std::string> expect;
  std::vector<std::uint64_t> expect_times;
  const std::uint64_t never = Activation::kNever;
  for (;;) {
    const std::uint64_t t = *std::min_element(pending.begin(), pending.end());
    if (t == never) break;
    std::vector<int> pass;
    for (int i = 0; i < kN; ++i)
      if (pending[i] == t) pass.push_back(i);
    while (!pass.empty()) {
      std::sort(pass.begin(), pass.end(), [&](int x, int y) { return rank(x) < rank(y); });
      std::vector<int> next;
      for (int i : pass) {
        pending[i] = never;
        expect.push_back("b" + std::to_string(i));
        expect_times.push_back(t);
        const int k = ++ref_runs[i];
        if (k >= kRuns) continue;
        if (wants_next_pass(i, k))
          next.push_back(i);
        else
          pending[i] = t + next_delay_ns(i, k);
      }
      for (int i : next) pending[i] = t;
      pass = next;
    }
  }
  CHECK(log.runs == expect);
  CHECK(log.times == expect_times);
}
}  // namespace

TEST_CASE("scheduler: more processes than a bucket word holds, with buckets reused") {
  check_many_processes(false);
}

TEST_CASE("scheduler: more processes than a bucket word holds, with run-ahead") {
  check_many_processes(true);
}

TEST_CASE("scheduler: two bucket words of processes, with buckets reused") {
  check_many_processes(false, 100);
}

TEST_CASE("scheduler: two bucket words of processes, with run-ahead") {
  check_many_processes(true, 100);
}

namespace {
// A process that runs first in a pass asks for 149 new distinct times, so buckets are made while
// the pass still has processes to run in the later words of its bucket (a bucket's words must
// stay where the pass reads them).
void check_buckets_made_during_a_pass(bool run_ahead) {
  constexpr int kN = 300, kLate = 150;
  Log log;
  std::vector<std::unique_ptr<Block>> blocks;
  for (int i = 0; i < kN; ++i)
    blocks.push_back(std::make_unique<Block>(("b" + std::to_string(i)).c_str(),
                                             i == 0 ? Stage::kMemory : Stage::kCore, log));
  blocks[0]->body = [&]() {
    for (int i = 1; i < kLate; ++i) blocks[i]->act.notify(sc_time(i, SC_NS));
  };
  Driver d("driver");
  d.at10 = [&]() {
    blocks[0]->act.notify(sc_core::SC_ZERO_TIME);
    for (int i = kLate; i < kN; ++i) blocks[i]->act.notify(sc_core::SC_ZERO_TIME);
  };
  if (run_ahead) ActivationScheduler::get().set_run_ahead_limit(Activation::kNever);
  sc_core::sc_start();

  std::vector<std::string> expect{"b0"};
  std::vector<std::uint64_t> expect_times{10};
  for (int i = kLate; i < kN; ++i) {
    expect.push_back("b" + std::to_string(i));
    expect_times.push_back(10);
  }
  for (int i = 1; i < kLate; ++i) {
    expect.push_back("b" + std::to_string(i));
    expect_times.push_back(10 + static_cast<std::uint64_t>(i));
  }
  CHECK(log.runs == expect);
  CHECK(log.times == expect_times);
}
}  // namespace

TEST_CASE("scheduler: buckets made during a pass leave its bucket in place") {
  check_buckets_made_during_a_pass(false);
}

TEST_CASE("scheduler: buckets made during a pass leave its bucket in place, with run-ahead") {
  check_buckets_made_during_a_pass(true);
}

TEST_CASE(
    "scheduler: a repeated request joins the time asked for last, and once that time runs, a "
    "request for it goes to its next pass") {
  Log log;
  Block a("a", Stage::kMemory, log), c("c", Stage::kNetwork, log), b("b", Stage::kCore, log);
  Driver d("driver");
  d.at10 = [&]() {
    a.act.notify(sc_time(5, SC_NS));  // a new time (15 ns)
    b.act.notify(sc_time(5, SC_NS));  // the same time again
  };
  bool first = true;
  a.body = [&]() {
    if (!first) return;
    first = false;
    c.act.notify(sc_core::SC_ZERO_TIME);  // 15 ns, running: the next pass
    a.act.notify(sc_time(5, SC_NS));      // a new time (20 ns)
  };
  c.body = [&]() { b.act.notify(sc_time(5, SC_NS)); };  // 20 ns again
  sc_core::sc_start();
  CHECK(log.runs == std::vector<std::string>{"a", "b", "c", "a", "b"});
  CHECK(log.times == std::vector<std::uint64_t>{15, 15, 15, 20, 20});
  CHECK(ActivationScheduler::get().passes() == 3);
}

// The ICC's merge table as a replaceable block (seed 001 §6.1). The ICC unit talks to it through
// MergeTableUnit with the AT transactions it receives; three implementations:
//   TlmMergeTable       the C++ model (model/merge_table.h), the default (icc.model=tlm);
//   the RTL transactor  the Verilated SystemVerilog table behind a TLM-to-pin adapter
//                       (tlm_components/rtl/, icc.model=rtl; built when Verilator is found);
//   LockstepMergeTable  both side by side: the RTL's answers drive the ICC and every operation is
//                       compared with the TLM's; the first divergence fails the run with both
//                       states (icc.model=lockstep).
// docs/rtl_cosim.md describes the contract and how to put another RTL block behind a transactor.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/merge_table.h"
#include "model/types.h"
#include "tlm_components/at_ports.h"

namespace locsim {

enum class MergeTableModel { Tlm, Rtl, Lockstep };

MergeTableModel parse_merge_table_model(const std::string& s);  // "tlm" | "rtl" | "lockstep"
const char* to_string(MergeTableModel m);

class MergeTableUnit {
 public:
  virtual ~MergeTableUnit() = default;
  // A global read `gp` of the bytes gpu_ext(gp).bytes of `line` by SM gpu_ext(gp).sm at `now`.
  virtual MergeOutcome lookup(Payload& gp, Addr line, Cycle now) = 0;
  // A store or atomic passing the table unmerged (§6.1).
  virtual void bypass(Payload& gp, Addr line, Cycle now) = 0;
  // The reply `gp` for `line`: if an entry holds the line and the reply carries every byte the
  // entry's request fetches (§6.1: any reply to the line, not only the leader's), frees it and
  // returns true with the SMs the reply goes to (gp's SM first, then one per merged request)
  // and the merged requests.
  virtual bool release(Payload& gp, Addr line, Cycle now, std::vector<std::uint16_t>& sms,
                       std::vector<Payload*>& merged) = 0;
  // What release would answer, without changing the table: true and the SMs the reply would go
  // to. The ICC checks room in its broadcast queues with it before taking a reply.
  virtual bool probe_release(Payload& gp, Addr line, Cycle now,
                             std::vector<std::uint16_t>& sms) = 0;
  virtual std::uint32_t in_use() const = 0;
  // Index of the entry the last operation used (-1: none), for lockstep comparison.
  virtual int last_entry() const = 0;
  // The state of the entry holding `line` (or "no entry"), for diagnostics.
  virtual std::string describe(Addr line) const = 0;
};

class TlmMergeTable final : public MergeTableUnit {
 public:
  TlmMergeTable(std::uint32_t entries, std::uint32_t first_sm)
      : table_(entries), first_sm_(first_sm) {}
  MergeOutcome lookup(Payload& gp, Addr line, Cycle now) override;
  void bypass(Payload&, Addr, Cycle) override { last_ = -1; }
  bool release(Payload& gp, Addr line, Cycle now, std::vector<std::uint16_t>& sms,
               std::vector<Payload*>& merged) override;
  bool probe_release(Payload& gp, Addr line, Cycle now, std::vector<std::uint16_t>& sms) override;
  std::uint32_t in_use() const override { return table_.in_use(); }
  int last_entry() const override { return last_; }
  std::string describe(Addr line) const override;

 private:
  MergeTable<Payload*> table_;
  std::uint32_t first_sm_;
  int last_ = -1;
};

// Runs `dut` and `ref` on every operation and returns the DUT's answers; `on_divergence` gets a
// one-line diagnostic (cycle, operation, address, both answers and both entry states) the first
// time they differ, and the unit stops comparing after that.
class LockstepMergeTable final : public MergeTableUnit {
 public:
  using DivergenceFn = std::function<void(const std::string&)>;
  LockstepMergeTable(std::unique_ptr<MergeTableUnit> dut, std::unique_ptr<MergeTableUnit> ref,
                     std::string unit, DivergenceFn on_divergence);
  MergeOutcome lookup(Payload& gp, Addr line, Cycle now) override;
  void bypass(Payload& gp, Addr line, Cycle now) override;
  bool release(Payload& gp, Addr line, Cycle now, std::vector<std::uint16_t>& sms,
               std::vector<Payload*>& merged) override;
  bool probe_release(Payload& gp, Addr line, Cycle now, std::vector<std::uint16_t>& sms) override;
  std::uint32_t in_use() const override { return dut_->in_use(); }
  int last_entry() const override { return dut_->last_entry(); }
  std::string describe(Addr line) const override { return dut_->describe(line); }
  std::uint64_t checks() const { return checks_; }  // clocked operations compared
  std::uint64_t probes() const { return probes_; }  // reply probes compared
  bool diverged() const { return diverged_; }

 private:
  void report(const char* op, const Payload& gp, Addr line, Cycle now, const std::string& dut,
              const std::string& ref, const std::string& dut_state, const std::string& ref_state);

  std::unique_ptr<MergeTableUnit> dut_, ref_;
  std::string unit_;
  DivergenceFn on_divergence_;
  std::uint64_t checks_ = 0, probes_ = 0;
  bool diverged_ = false;
  std::vector<std::uint16_t> ref_sms_, dut_sorted_;
  std::vector<Payload*> ref_merged_;
};

// Entry counts the build has Verilated the RTL table for (empty without Verilator).
std::vector<std::uint32_t> rtl_merge_table_sizes();

// Throws ConfigError unless the build has an RTL table for this geometry.
void check_rtl_merge_table(std::uint32_t entries, std::uint32_t sms, std::uint32_t line_bytes);

// The RTL table behind its transactor, an sc_module named `name` under the current module;
// `on_error` gets protocol violations of the RTL (an answer the contract does not allow).
// Throws ConfigError as check_rtl_merge_table does.
std::unique_ptr<MergeTableUnit> make_rtl_merge_table(
    const char* name, std::uint32_t entries, std::uint32_t sms, std::uint32_t first_sm,
    std::uint32_t line_bytes, std::function<void(const std::string&)> on_error);

}  // namespace locsim

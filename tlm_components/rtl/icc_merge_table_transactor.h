// TLM-to-pin adapter of the ICC merge table (rtl/icc_merge_table.sv): an sc_module that owns the
// Verilated model and its pins and turns each AT transaction the ICC receives into one RTL clock
// cycle (seed 001 §6.1 operations: read lookup, write bypass, reply release):
//   drive op_* from the payload (line address, byte mask, requester SM relative to the cluster,
//   tag = low 32 bits of the payload's run-unique id), one rising edge of clk, read rsp_*.
// A probe drives the same pins without a clock edge and reads the combinational look_* outputs.
// The clock exists only inside the adapter and ticks only when a transaction arrives, so the RTL
// costs nothing while the ICC is idle and answers in the same delta as its TLM twin (PinWire).
// The table's state (valid, line, bytes, leader tag, requester bit-vector) lives in the RTL; the
// adapter keeps only what RTL cannot hold, the waiting payloads, per entry and requester, and
// hands them back in the order the RTL's broadcast bit-vector names.
#pragma once
#include <sysc/datatypes/bit/sc_bv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "tlm_components/merge_table_unit.h"
#include "tlm_components/rtl/pin_wire.h"

namespace locsim {

class IccMergeTableTransactor : public sc_core::sc_module, public MergeTableUnit {
 public:
  static constexpr unsigned kMaskBits = 128;  // MASK_BITS of the RTL: bytes of a line
  static constexpr unsigned kSmBits = 32;     // SMS of the RTL: requester bit-vector width

  // One Verilated variant of the table (they differ in ENTRIES only), bound to the pins.
  class Model {
   public:
    virtual ~Model() = default;
    virtual void eval() = 0;
  };
  using ModelFactory = std::function<std::unique_ptr<Model>(IccMergeTableTransactor&)>;
  using ErrorFn = std::function<void(const std::string&)>;

  // Pins of icc_merge_table.sv, named as in the RTL.
  BoolPinWire clk, rst_n, op_valid, rsp_valid, dbg_valid;
  PinWire<std::uint32_t> op_kind, op_sm, op_tag, look_outcome, look_entry, rsp_outcome, rsp_entry,
      rsp_sms, in_use_pin, dbg_entry, dbg_sms, dbg_tag;
  PinWire<std::uint64_t> op_line, dbg_line;
  PinWire<sc_dt::sc_bv<kMaskBits>> op_mask, dbg_mask;

  IccMergeTableTransactor(sc_core::sc_module_name name, std::uint32_t entries, std::uint32_t sms,
                          std::uint32_t first_sm, const ModelFactory& make, ErrorFn on_error);

  MergeOutcome lookup(Payload& gp, Addr line, Cycle now) override;
  void bypass(Payload& gp, Addr line, Cycle now) override;
  bool release(Payload& gp, Addr line, Cycle now, std::vector<std::uint16_t>& sms,
               std::vector<Payload*>& merged) override;
  bool probe_release(Payload& gp, Addr line, Cycle now, std::vector<std::uint16_t>& sms) override;
  std::uint32_t in_use() const override { return in_use_pin.read(); }
  int last_entry() const override { return last_; }
  std::string describe(Addr line) const override;

  std::uint64_t clock_edges() const { return edges_; }

  // Outcome codes of rsp_outcome (the RTL's localparams).
  enum Code : std::uint32_t {
    kMerged = 0,
    kAllocated = 1,
    kFull = 2,
    kUncovered = 3,
    kBypass = 4,
    kReleased = 5,
    kDirect = 6,
    kIdle = 7
  };

 private:
  enum OpKind : std::uint32_t { kRead = 0, kWrite = 1, kReply = 2 };
  void start_of_simulation() override { reset(); }
  void reset();
  void edge();
  void drive(OpKind kind, Addr line, const ByteMask& mask, std::uint32_t sm, std::uint32_t tag);
  std::uint32_t clock_op(OpKind kind, Addr line, const ByteMask& mask, std::uint32_t sm,
                         std::uint32_t tag);
  // The SMs a release of entry `entry` goes to: the reply's SM `sm`, then each waiting request's
  // SM in the order of the bit-vector `vec`; moves the waiting requests to `merged` if given.
  void broadcast_list(std::uint32_t entry, std::uint32_t vec, std::uint16_t sm,
                      std::vector<std::uint16_t>& sms, std::vector<Payload*>* merged);
  std::uint32_t relative_sm(const Payload& gp) const;
  void error(const std::string& msg) const;

  std::uint32_t entries_, sms_, first_sm_;
  std::unique_ptr<Model> model_;
  ErrorFn on_error_;
  bool reset_done_ = false;
  std::uint64_t edges_ = 0;
  int last_ = -1;
  // Payloads merged into entry e by requester s: waiting_[e * sms_ + s], in arrival order.
  std::vector<std::vector<Payload*>> waiting_;
};

}  // namespace locsim

// A pin between a transactor and a Verilated SystemC model whose value changes at once, in the
// same delta: write() stores, read() returns the last value written. A transactor drives the
// model's inputs, calls the model's eval() and reads its outputs within one function call, so an
// RTL block answers an AT transaction synchronously, exactly where its TLM twin would (an
// sc_signal would only update in the next delta, after the caller had moved on).
// Its events are never notified: the model is evaluated by the transactor only, never by the
// SystemC scheduler, which keeps the RTL clock inside the adapter (no per-cycle wake-ups).
#pragma once
#include <systemc>

namespace locsim {

template <class T>
class PinWire : public sc_core::sc_prim_channel, public sc_core::sc_signal_inout_if<T> {
 public:
  explicit PinWire(const char* name) : sc_core::sc_prim_channel(name) {}

  void write(const T& v) override { value_ = v; }
  const T& read() const override { return value_; }
  const T& get_data_ref() const override { return value_; }
  const sc_core::sc_event& value_changed_event() const override { return never_; }
  const sc_core::sc_event& default_event() const override { return never_; }
  bool event() const override { return false; }

 private:
  T value_{};
  sc_core::sc_event never_;
};

// bool pins also answer the edge queries of sc_signal_in_if<bool>.
class BoolPinWire : public sc_core::sc_prim_channel, public sc_core::sc_signal_inout_if<bool> {
 public:
  explicit BoolPinWire(const char* name) : sc_core::sc_prim_channel(name) {}

  void write(const bool& v) override { value_ = v; }
  const bool& read() const override { return value_; }
  const bool& get_data_ref() const override { return value_; }
  const sc_core::sc_event& value_changed_event() const override { return never_; }
  const sc_core::sc_event& posedge_event() const override { return never_; }
  const sc_core::sc_event& negedge_event() const override { return never_; }
  const sc_core::sc_event& default_event() const override { return never_; }
  bool event() const override { return false; }
  bool posedge() const override { return false; }
  bool negedge() const override { return false; }

 private:
  bool value_ = false;
  sc_core::sc_event never_;
};

}  // namespace locsim

// Run-wide services shared by the modules of one platform: the payload pool, the statistics
// registry, the golden memory of the data-integrity mode, the progress counter the watchdog
// observes, and the failure list (a failure stops the simulation and makes the run exit 3).
#pragma once
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include "model/golden_memory.h"
#include "model/stats.h"
#include "tlm_components/payload_pool.h"

namespace locsim {

struct SimContext {
  PayloadPool pool;
  StatRegistry stats;
  bool check_data = false;
  GoldenMemory golden;
  std::uint64_t progress = 0;  // advanced by every issued instruction and delivered response
  std::vector<std::string> failures;

  void fail(const std::string& msg) {
    failures.push_back(msg);
    // Stop once: a second sc_stop is SystemC's warning W545, which (warnings being errors) would
    // replace the first failure's message with its own.
    if (failures.size() == 1) sc_core::sc_stop();
  }
};

// CTA dispatcher -> SM.
class CtaLaunchIf : public virtual sc_core::sc_interface {
 public:
  virtual void launch_cta(const class Kernel& k, std::uint16_t kernel_seq, std::uint32_t cta) = 0;
  virtual std::uint32_t resident_ctas() const = 0;
};

// SM -> CTA dispatcher.
class CtaCompletionIf : public virtual sc_core::sc_interface {
 public:
  virtual void cta_done(std::uint32_t sm, std::uint32_t cta) = 0;
};

}  // namespace locsim

// A paper's mechanism as a plug-in of the GPU platform. A mechanism owns its parameters (declared
// by its MechanismInfo), its configuration (made by make_gpu_config when the parameters turn it
// on), its elaboration steps (called by the topology builder at fixed points), its kernel-begin /
// kernel-end hooks and its section of the run report. GpuPlatform and apps/ only see this
// interface; docs/architecture.md ("Adding a mechanism") walks through ICC as the example.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace locsim {

class Kernel;
class Workload;
class ParamRegistry;
class PlatformBuild;
struct GpuConfig;

class Mechanism {
 public:
  virtual ~Mechanism() = default;
  virtual const char* name() const = 0;

  // Elaboration, in the order the builder calls them.
  // 1. After the SMs and L1s exist, before the interconnect: create the mechanism's own modules.
  virtual void create_units(PlatformBuild&) {}
  // 2. True if this mechanism puts a unit between each cluster's L1s and the cluster's
  //    interconnect port (then the interconnect has one source per cluster, not per SM).
  virtual bool fronts_cluster_ports() const { return false; }
  // 3. Binds SM `sm`'s L1 downstream socket (only called when fronts_cluster_ports()).
  virtual void wire_l1(PlatformBuild&, std::uint32_t /*sm*/) {}
  // 3b. True if this mechanism puts a unit between each SM and its L1; the builder then calls
  //     wire_sm(b, sm) instead of binding the SM to the L1 (seed 002's shared-L1 port).
  virtual bool fronts_l1s() const { return false; }
  virtual void wire_sm(PlatformBuild&, std::uint32_t /*sm*/) {}
  // Initiator and target bindings per core the mechanism adds to the platform's interconnect,
  // after the L1s' (`in`) and the L2 sub-partitions' (`out`) bindings, in core order.
  virtual std::uint32_t noc_bindings_per_core() const { return 0; }
  // 4. Binds the mechanism's own units to the interconnect (after every L1 is wired).
  virtual void wire_units(PlatformBuild&) {}
  // 5. After all wiring: observers on existing blocks, statistics.
  virtual void elaborate(PlatformBuild&) {}

  // A workload was queued (GpuPlatform::load / launch), before any of its kernels runs.
  virtual void workload_loaded(const Workload&) {}
  // Kernel boundaries (after the platform's own snapshot and L1 invalidation).
  virtual void kernel_begin(std::uint32_t /*seq*/, const Kernel&) {}
  virtual void kernel_end(std::uint32_t /*seq*/, const Kernel&) {}
  // A CTA of the current kernel was launched on / has retired from SM `sm`.
  virtual void cta_launched(std::uint32_t /*sm*/, std::uint32_t /*cta*/) {}
  virtual void cta_finished(std::uint32_t /*sm*/, std::uint32_t /*cta*/) {}
  // Adds the mechanism's sections to the run report's top-level JSON.
  virtual void report(nlohmann::json& /*extra*/) const {}
};

// A mechanism's configuration, made before elaboration (GpuConfig holds it).
class MechanismConfig {
 public:
  virtual ~MechanismConfig() = default;
  virtual std::unique_ptr<Mechanism> instantiate() const = 0;
};

struct MechanismInfo {
  const char* name;
  const char* paper;  // which seed/section it implements
  void (*declare_params)(ParamRegistry&);
  // The configuration when the parameters turn the mechanism on, else nullptr. Throws
  // ConfigError naming the key. It may adjust the blocks' configuration it depends on (the
  // Locality Descriptor's LDesc-Sched picks the CTA policy).
  std::shared_ptr<const MechanismConfig> (*configure)(const ParamRegistry&, GpuConfig&);
};

// Every mechanism locsim knows, in elaboration order (one table: platforms/mechanism.cpp).
const std::vector<MechanismInfo>& mechanism_registry();

}  // namespace locsim

// locsim command-line front end: run / list / params / elaborate.
// Exit codes: 0 success, 2 usage/config/input error (one line on stderr), 3 simulation failure.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <systemc>
#include <thread>
#include <vector>

#include "apps/sweep.h"
#include "model/gpgpusim_config.h"
#include "model/graph_partition.h"
#include "model/interval_sampler.h"
#include "model/locality_graph.h"
#include "model/params.h"
#include "model/paver_policy.h"
#include "model/stats_report.h"
#include "model/version.h"
#include "platforms/gpu_params.h"
#include "platforms/gpu_platform.h"
#include "platforms/replay.h"
#include "stimuli/accelsim/accelsim_trace.h"
#include "stimuli/accelsim/trace_export.h"
#include "stimuli/workload_registry.h"
#include "tlm_components/timeline.h"

namespace po = boost::program_options;
using namespace locsim;

namespace {

constexpr int kExitOk = 0, kExitUsage = 2, kExitSimFailure = 3;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A numeric option read as text: Boost's conversion takes "-1" as 2^64 - 1 (or 2^32 - 1).
std::uint64_t option_number(const char* option, const std::string& text,
                            std::uint64_t max = ~std::uint64_t{0}) {
  const std::optional<std::uint64_t> v = parse_decimal_u64(text);
  if (!v || *v > max)
    throw UsageError(std::string(option) + " '" + text + "': must be an integer in [0, " +
                     std::to_string(max) + "]");
  return *v;
}

// `locsim COMMAND --help`: the command's options, printed by sc_main (exit 0).
struct HelpRequested {
  std::string options;
};

const char* kUsage =
    "usage: locsim <command> [options]\n"
    "commands:\n"
    "  run        --platform NAME (--workload NAME | --trace DIR/kernelslist.g) [--set k=v]...\n"
    "             [--config F]... [--stats-json F]\n"
    "             [--stats-csv F] [--check-data] [--check-protocol] [--per-instance]\n"
    "             [--quiet] [--progress]\n"
    "  list       platforms | workloads\n"
    "  params     [--platform NAME] [--set k=v]... [--config F]... [--markdown]\n"
    "  elaborate  --platform NAME [--set k=v]... [--config F]...\n"
    "  replay     --platform NAME (--workload NAME | --trace DIR/kernelslist.g) [--set k=v]...\n"
    "             [--config F]... [--stats-json F]\n"
    "             functional cache replay, no timing (docs/replay.md)\n"
    "  analyze    (--workload NAME | --trace DIR/kernelslist.g) [--platform NAME] [--set k=v]...\n"
    "             [--graph-bytes N] [--block-bytes N] [--max-sharers N] [--json F]\n"
    "             locality graphs and data-reference classes per kernel (PAVER, docs/paver.md)\n"
    "  sweep      SPEC.json [-j N] [-o DIR] [--dry-run] [--retry-failed] [--progress]\n"
    "             [--slurm [--partition P] [--time T] [--array-limit K]]\n"
    "             runs of a sweep file in parallel or as a Slurm job array, results in\n"
    "             DIR/results.csv and .sqlite; 'locsim sweep collect SPEC.json [-o DIR]'\n"
    "             gathers them (docs/sweeps.md)\n"
    "  export-trace --workload NAME [--set workload.k=v]... [--max-sources N] DIR\n"
    "             write a workload as an Accel-Sim trace (docs/traces.md)\n"
    "  version    the version and the git commit this binary was built from\n"
    "  help       this text; 'locsim COMMAND --help' lists a command's options\n"
    "workload parameters are set with --set workload.PARAM=VALUE (see 'locsim list workloads');\n"
    "--set workload.preset=NAME selects a named size preset (e.g. paver), explicit values override "
    "it.\n";

struct Common {
  std::string platform, gpgpusim;
  std::vector<std::string> sets, configs;
  // Filled by build_params: the GPGPU-Sim options --gpgpusim-config could not map.
  std::vector<GpgpuSimImport::Ignored> gpgpusim_ignored;
  std::size_t gpgpusim_mapped = 0;
};

void add_common(po::options_description& d, Common& c) {
  d.add_options()("platform,p", po::value(&c.platform), "platform name (platforms/NAME.json)")(
      "set,s", po::value(&c.sets)->composing(), "override a parameter: key=value")(
      "config,c", po::value(&c.configs)->composing(), "JSON file of parameter values")(
      "gpgpusim-config", po::value(&c.gpgpusim),
      "GPGPU-Sim gpgpusim.config to import (docs/gpgpusim_import.md)");
}

// The options of --gpgpusim-config that were not imported, one line each, on stderr.
void print_gpgpusim_ignored(const Common& c) {
  if (c.gpgpusim.empty()) return;
  std::cerr << "locsim: " << c.gpgpusim << ": " << c.gpgpusim_mapped
            << " locsim parameters imported; " << c.gpgpusim_ignored.size()
            << (c.gpgpusim_ignored.size() == 1 ? " option" : " options") << " ignored:\n";
  for (const auto& i : c.gpgpusim_ignored)
    std::cerr << "  " << c.gpgpusim << ":" << i.line << "  " << i.option << " " << i.value
              << "  -- " << i.reason << "\n";
}

// Parses the options of a command; a stray word (a typo'd option value, a second workload name)
// is an error, not silently ignored.
void parse(po::options_description& d, const std::vector<std::string>& args,
           const po::positional_options_description& pos = {}) {
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    d.add_options()("help,h", "this text");
    std::ostringstream os;
    os << d
       << "parameters: 'locsim params --platform NAME' (docs/config.md); workloads and their "
          "parameters: 'locsim list workloads'\n";
    throw HelpRequested{os.str()};
  }
  po::variables_map vm;
  po::parsed_options parsed = [&] {
    try {
      return po::command_line_parser(args).options(d).positional(pos).run();
    } catch (const po::too_many_positional_options_error&) {
      // Name the first word that is neither an option, an option's value nor an expected
      // positional argument.
      unsigned positional = 0;
      for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.size() > 1 && a[0] == '-') {
          // --name[=value] or -x[value]: does the next word belong to this option?
          const bool is_long = a[1] == '-';
          const std::size_t eq = a.find('=');
          const std::string name =
              is_long ? a.substr(2, eq == std::string::npos ? a.npos : eq - 2) : a.substr(0, 2);
          const po::option_description* o = d.find_nothrow(name, false);
          const bool inline_value = is_long ? eq != std::string::npos : a.size() > 2;
          if (o && o->semantic()->max_tokens() > 0 && !inline_value) ++i;  // its value
          continue;
        }
        if (++positional > pos.max_total_count())
          throw UsageError("unexpected argument '" + a +
                           "' (options take names: --platform NAME --workload NAME; see "
                           "'--help')");
      }
      throw;
    }
  }();
  po::store(parsed, vm);
  po::notify(vm);
}

// Builds the parameter set: defaults, platform file, config files, then --set (workload.* keys
// are returned separately for the workload factory).
void build_params(ParamRegistry& p, Common& c, WorkloadArgs* wargs, bool need_platform) {
  declare_gpu_params(p);
  if (c.platform.empty() && !c.gpgpusim.empty()) {
    load_platform(p, "fermi");  // the base of an imported GPGPU-Sim configuration
  } else if (c.platform.empty()) {
    if (need_platform) throw UsageError("missing --platform (known: see 'locsim list platforms')");
  } else {
    load_platform(p, c.platform);
  }
  if (!c.gpgpusim.empty()) {
    std::ifstream f(c.gpgpusim);
    // A directory opens but does not read: it used to import nothing and exit 0.
    struct stat st;
    if (!f || (::stat(c.gpgpusim.c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
      throw UsageError("cannot read GPGPU-Sim config '" + c.gpgpusim + "'");
    std::stringstream text;
    text << f.rdbuf();
    GpgpuSimImport imp = import_gpgpusim_config(text.str(), c.gpgpusim);
    for (const auto& a : imp.assignments)
      p.set(a.key, a.value, c.gpgpusim + ":" + std::to_string(a.line));
    c.gpgpusim_mapped = imp.assignments.size();
    c.gpgpusim_ignored = std::move(imp.ignored);
  }
  for (const auto& f : c.configs) p.load_json_file(f);
  for (const auto& s : c.sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--set '" + s + "': expected key=value");
    std::string key = s.substr(0, eq);
    if (key.rfind("workload.", 0) == 0) {
      if (!wargs) throw UsageError("--set '" + s + "': workload parameters only apply to 'run'");
      (*wargs)[key.substr(9)] = s.substr(eq + 1);
    } else {
      p.set(key, s.substr(eq + 1), "--set");
    }
  }
}

std::string fmt_rate(double v) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(2);
  if (v >= 1e6)
    os << v / 1e6 << " M";
  else if (v >= 1e3)
    os << v / 1e3 << " k";
  else
    os << v << " ";
  return os.str();
}

// Counter tracks of a timeline at a watchdog check: IPC, NoC and DRAM GB/s since the last one.
void timeline_counters(Timeline& t, const GpuPlatform& g) {
  static std::uint64_t last_cycle = 0, last_insts = 0, last_noc = 0, last_dram = 0;
  const StatRegistry& s = const_cast<GpuPlatform&>(g).context().stats;
  const std::uint64_t now = g.now_cycles();
  if (now <= last_cycle) return;
  const std::uint64_t insts = s.total("sm", "warp_insts"), noc = s.total("noc", "bytes"),
                      dram = s.total("dram", "read_bytes") + s.total("dram", "write_bytes");
  const double cycles = double(now - last_cycle), hz = g.config().sm.clock_hz;
  const auto ps = static_cast<std::uint64_t>(double(now) * 1e12 / hz);
  t.counter(ps, "IPC", double(insts - last_insts) / cycles);
  t.counter(ps, "NoC GB/s", double(noc - last_noc) / (cycles / hz) / 1e9);
  t.counter(ps, "DRAM GB/s", double(dram - last_dram) / (cycles / hz) / 1e9);
  last_cycle = now;
  last_insts = insts;
  last_noc = noc;
  last_dram = dram;
}

int cmd_run(const std::vector<std::string>& args) {
  Common c;
  std::string workload, trace, json_out, csv_out, samples_out, timeline_out, timeline_window;
  std::string sample_interval_text;
  bool check_data = false, check_protocol = false, quiet = false, progress = false,
       per_instance = false;
  po::options_description d("run options");
  add_common(d, c);
  d.add_options()("workload,w", po::value(&workload), "built-in workload")(
      "trace,t", po::value(&trace), "Accel-Sim trace (kernelslist.g)")(
      "stats-json", po::value(&json_out), "write statistics as JSON")(
      "stats-csv", po::value(&csv_out), "write statistics as CSV")(
      "check-data", po::bool_switch(&check_data), "data-integrity mode")(
      "check-protocol", po::bool_switch(&check_protocol), "TLM protocol checkers on every link")(
      "per-instance", po::bool_switch(&per_instance), "per-module statistics in the JSON")(
      "quiet,q", po::bool_switch(&quiet), "no table, no progress")(
      "progress", po::bool_switch(&progress), "progress line on stderr even if not a terminal")(
      "sample-interval", po::value(&sample_interval_text),
      "every N core cycles, one row of interval statistics in --samples")(
      "samples", po::value(&samples_out), "CSV file of the interval statistics")(
      "timeline", po::value(&timeline_out),
      "Chrome trace-event JSON of every transaction's path (Perfetto; docs/timelines.md)")(
      "timeline-window", po::value(&timeline_window),
      "START:END core cycles of the timeline (default: the whole run)");
  parse(d, args);
  const std::uint64_t sample_interval =
      sample_interval_text.empty() ? 0 : option_number("--sample-interval", sample_interval_text);
  if (!trace.empty() && !workload.empty()) throw UsageError("give --workload or --trace, not both");
  if (c.platform.empty() && workload.empty() && trace.empty())
    throw UsageError(
        "missing --platform NAME and --workload NAME (e.g. 'locsim run --platform fermi "
        "--workload vecadd'; 'locsim run --help')");
  if (sample_interval && samples_out.empty())
    throw UsageError("--sample-interval needs --samples FILE.csv");
  if (!samples_out.empty() && !sample_interval)
    throw UsageError("--samples needs --sample-interval N (core cycles)");
  if (workload.empty() && trace.empty())
    throw UsageError("missing --workload (see 'locsim list workloads') or --trace");

  ParamRegistry p;
  WorkloadArgs wargs;
  build_params(p, c, &wargs, true);
  if (!quiet) print_gpgpusim_ignored(c);
  if (check_data) p.set("check.data", "true", "--check-data");
  if (check_protocol) p.set("check.protocol", "true", "--check-protocol");
  GpuConfig cfg = make_gpu_config(p);
  if (!trace.empty() && !wargs.empty())
    throw UsageError("--set workload." + wargs.begin()->first +
                     ": workload parameters do not apply to --trace");
  std::unique_ptr<Workload> wl =
      trace.empty() ? make_workload(workload, wargs) : load_accelsim_trace(trace);
  if (!json_out.empty() && json_out == csv_out)
    throw UsageError("--stats-json and --stats-csv name the same file '" + json_out + "'");
  // Validate output paths before a long simulation.
  for (const std::string* f : {&json_out, &csv_out, &samples_out})
    if (!f->empty()) write_text_file(*f, "");
  if (sample_interval && (!cfg.watchdog_cycles || sample_interval % cfg.watchdog_interval))
    throw UsageError("--sample-interval " + std::to_string(sample_interval) +
                     ": must be a multiple of watchdog.interval (" +
                     std::to_string(cfg.watchdog_interval) +
                     ") with the watchdog on; samples ride on its checks so that sampling "
                     "cannot change the simulation");
  if (!samples_out.empty() && (samples_out == json_out || samples_out == csv_out))
    throw UsageError("--samples names the same file as --stats-json or --stats-csv");
  if (!timeline_window.empty() && timeline_out.empty())
    throw UsageError("--timeline-window needs --timeline FILE.json");
  std::unique_ptr<Timeline> timeline;
  if (!timeline_out.empty()) {
    std::uint64_t a = 0, b = ~std::uint64_t{0};
    if (!timeline_window.empty()) {
      const auto colon = timeline_window.find(':');
      const auto lo = colon == std::string::npos
                          ? std::nullopt
                          : parse_decimal_u64(timeline_window.substr(0, colon));
      const auto hi = colon == std::string::npos
                          ? std::nullopt
                          : parse_decimal_u64(timeline_window.substr(colon + 1));
      if (!lo || !hi || *hi <= *lo)
        throw UsageError("--timeline-window '" + timeline_window +
                         "': expected START:END core cycles with START < END");
      const double ps = 1e12 / p.get_frequency_hz("clock.core");
      a = static_cast<std::uint64_t>(double(*lo) * ps);
      b = static_cast<std::uint64_t>(double(*hi) * ps);
    }
    if (timeline_out == json_out || timeline_out == csv_out || timeline_out == samples_out)
      throw UsageError("--timeline names the same file as another output");
    write_text_file(timeline_out, "");
    timeline = std::make_unique<Timeline>(timeline_out, a, b);
    timeline->install();
  }
  std::ofstream samples_file;
  std::unique_ptr<IntervalSampler> sampler;
  if (sample_interval) {
    samples_file.open(samples_out);
    sampler = std::make_unique<IntervalSampler>(samples_file, p.get_frequency_hz("clock.core"));
  }

  const auto t0 = std::chrono::steady_clock::now();
  GpuPlatform gpu("gpu", cfg);
  gpu.load(*wl);
  const bool show_progress = !quiet && (progress || isatty(STDERR_FILENO));
  auto last = t0;
  bool printed = false;
  Cycle last_printed = 0;
  // One periodic callback serves both: the sampler at its interval, the progress line at most
  // every 100,000 cycles (and every 0.5 s on a terminal).
  if ((show_progress || sampler || timeline) &&
      !gpu.set_progress(
          [&](const GpuPlatform& g) {
            if (sampler)
              sampler->sample(const_cast<GpuPlatform&>(g).context().stats, g.now_cycles(),
                              g.held_by_block());
            if (timeline) timeline_counters(*timeline, g);
            if (!show_progress || (sampler && g.now_cycles() < last_printed + 100000)) return;
            auto now = std::chrono::steady_clock::now();
            if (std::chrono::duration<double>(now - last).count() < 0.5 && !progress) return;
            last = now;
            last_printed = g.now_cycles();
            double s = std::chrono::duration<double>(now - t0).count();
            double wi = static_cast<double>(
                const_cast<GpuPlatform&>(g).context().stats.total("sm", "warp_insts"));
            std::fprintf(stderr, "\r[locsim] CTAs %u/%u | cycle %llu | %s warp-inst/s   ",
                         g.ctas_completed(), g.ctas_total(),
                         static_cast<unsigned long long>(g.now_cycles()),
                         fmt_rate(s > 0 ? wi / s : 0).c_str());
            printed = true;
          },
          sampler    ? sample_interval
          : timeline ? cfg.watchdog_interval
                     : 100000) &&
      progress)
    std::cerr << "locsim: no progress line with the watchdog off (watchdog.limit=0)\n";
  RunOutcome o;
  try {
    o = gpu.simulate();
  } catch (const sc_core::sc_report& r) {
    o.ok = false;
    o.failures.push_back(std::string("SystemC error: ") + r.what());
    o.end = gpu.context().stats.snapshot();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (printed) std::fprintf(stderr, "\n");
  if (timeline) {
    if (!timeline->close()) throw UsageError("cannot write '" + timeline_out + "'");
    if (!quiet)
      std::cerr << "locsim: timeline " << timeline_out << ": " << timeline->slices() << " slices\n";
  }
  if (sampler) {
    sampler->sample(gpu.context().stats, o.cycles);  // the last, partial interval
    samples_file.flush();
    if (!samples_file) throw UsageError("cannot write '" + samples_out + "'");
  }

  RunReport r;
  r.platform = cfg.name;
  r.workload = wl->name();
  r.cycles = o.cycles;
  r.end = o.end;
  r.wall_s = wall;
  r.peak_rss_mb = peak_rss_mb();
  r.cta_policy_analysis_s = gpu.dispatcher().policy().analysis_seconds();
  r.core_hz = p.get_frequency_hz("clock.core");
  for (const auto& k : o.kernels) {
    RunReport::KernelInterval ki;
    ki.name = k.name;
    ki.begin = k.begin;
    ki.end = k.finish.counters.empty() ? o.end : k.finish;
    ki.cycles = k.end > k.start ? k.end - k.start : 0;
    r.kernels.push_back(std::move(ki));
  }
  r.extra["truncated"] = o.truncated;
  r.extra["check_data"] = cfg.check_data;
  r.extra["verified_words"] = o.verified_words;
  r.extra["ok"] = o.ok;
  gpu.report(r.extra);
  nlohmann::json params = nlohmann::json::object();
  for (const auto& info : p.list()) params[info.name] = info.value_text;
  r.extra["config"] = params;
  for (const auto& kv : wargs) r.extra["workload_args"][kv.first] = kv.second;

  const StatRegistry& reg = gpu.context().stats;
  if (!quiet) std::cout << report_table(reg, r);
  if (!json_out.empty())
    // Names come from user files (platform JSON, trace headers): invalid UTF-8 is replaced rather
    // than failing the report after the whole run.
    write_text_file(json_out,
                    report_json(reg, r, per_instance)
                            .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                        "\n");
  if (!csv_out.empty()) write_text_file(csv_out, report_csv(reg, r));
  if (o.truncated && !quiet)
    std::cerr << "locsim: stopped at sim.max_cycles=" << cfg.max_cycles << "\n";
  if (!o.ok) {
    for (const auto& f : o.failures) std::cerr << "locsim: simulation failure: " << f << "\n";
    return kExitSimFailure;
  }
  return kExitOk;
}

// Distinct Locality Descriptor kinds over a workload's data structures, e.g.
// "INTER-THREAD (COACCESSED, REGULAR), NO-REUSE".
std::string locality_class(const Workload& w) {
  std::vector<std::string> kinds;
  for (const auto& k : w.kernels())
    for (const DataStructure& d : k->data())
      for (const LocalityDescriptor& l : d.locality) {
        std::string s = describe(l);
        if (std::find(kinds.begin(), kinds.end(), s) == kinds.end()) kinds.push_back(s);
      }
  std::string out;
  for (const auto& s : kinds) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "-" : out;
}

int cmd_list(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) throw HelpRequested{};
  if (args.size() != 1) throw UsageError("usage: locsim list platforms|workloads");
  if (args[0] == "platforms") {
    for (const auto& n : platform_names()) {
      ParamRegistry p;
      declare_gpu_params(p);
      load_platform(p, n);
      std::cout << std::left << std::setw(12) << n << p.get_string("platform.description") << "\n";
    }
    return kExitOk;
  }
  if (args[0] == "workloads") {
    // Column widths follow the longest entry so long names never run into the next column.
    std::size_t name_w = 5, size_w = 13, suite_w = 6;
    for (const auto& w : workload_registry()) {
      name_w = std::max(name_w, w.name.size() + 2);
      suite_w = std::max(suite_w, w.suite.size() + 2);
      size_w = std::max(size_w, w.default_size.size() + 2);
    }
    const int nw = static_cast<int>(name_w), sw = static_cast<int>(size_w),
              uw = static_cast<int>(suite_w);
    std::cout << std::left << std::setw(nw) << "name" << std::setw(uw) << "suite" << std::setw(8)
              << "CTAs" << std::setw(9) << "threads" << std::setw(sw) << "default size"
              << "locality (seed 000 Locality Descriptors) / description\n";
    for (const auto& w : workload_registry()) {
      auto inst = w.make({});
      const Kernel& k = *inst->kernels().front();
      std::uint64_t ctas = 0;
      for (const auto& kk : inst->kernels()) ctas += kk->num_ctas();
      std::cout << std::left << std::setw(nw) << w.name << std::setw(uw) << w.suite << std::setw(8)
                << ctas << std::setw(9) << k.threads_per_cta() << std::setw(sw) << w.default_size
                << locality_class(*inst) << "\n"
                << std::setw(nw) << "" << w.description << "\n";
      for (const auto& prm : w.params)
        std::cout << "    workload." << prm.first << " (default " << prm.second.first
                  << "): " << prm.second.second << "\n";
      for (const auto& ps : w.presets) {  // named size presets (workload.preset=NAME)
        std::cout << "    workload.preset=" << ps.first << ":";
        for (const auto& kv : ps.second) std::cout << " " << kv.first << "=" << kv.second;
        std::cout << "\n";
      }
    }
    return kExitOk;
  }
  throw UsageError("list: unknown category '" + args[0] + "' (known: platforms, workloads)");
}

int cmd_params(const std::vector<std::string>& args) {
  Common c;
  bool markdown = false;
  po::options_description d("params options");
  add_common(d, c);
  d.add_options()("markdown", po::bool_switch(&markdown), "Markdown table (docs/config.md)");
  parse(d, args);
  ParamRegistry p;
  build_params(p, c, nullptr, false);
  print_gpgpusim_ignored(c);
  make_gpu_config(p);  // validate the combination too
  if (markdown) {
    std::cout << "| key | type | default | unit | description |\n|---|---|---|---|---|\n";
    for (const auto& i : p.list()) {
      std::string desc = i.desc;
      if (!i.choices.empty()) {
        desc += " (one of:";
        for (const auto& ch : i.choices) desc += " " + ch;
        desc += ")";
      }
      std::cout << "| `" << i.name << "` | " << to_string(i.type) << " | `" << i.default_text
                << "` | " << i.unit << " | " << desc << " |\n";
    }
    return kExitOk;
  }
  std::size_t name_w = 32;  // the longest key sets the column, so names never run into values
  for (const auto& i : p.list()) name_w = std::max(name_w, i.name.size() + 2);
  for (const auto& i : p.list()) {
    std::cout << std::left << std::setw(static_cast<int>(name_w)) << i.name << std::setw(22)
              << i.value_text << std::setw(13) << i.unit << i.desc;
    if (i.value_text != i.default_text)
      std::cout << " [default " << i.default_text << ", from " << i.source << "]";
    std::cout << "\n";
  }
  return kExitOk;
}

int cmd_elaborate(const std::vector<std::string>& args) {
  Common c;
  po::options_description d("elaborate options");
  add_common(d, c);
  parse(d, args);
  ParamRegistry p;
  build_params(p, c, nullptr, true);
  print_gpgpusim_ignored(c);
  GpuConfig cfg = make_gpu_config(p);
  const auto t0 = std::chrono::steady_clock::now();
  GpuPlatform gpu("gpu", cfg);
  // With no workload the dispatcher stops at once; SystemC's "stopped by user" note is noise.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // completes elaboration and initialisation only
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string mechanisms;
  for (const auto& m : mechanism_registry())
    if (gpu.mechanism(m.name)) mechanisms += (mechanisms.empty() ? "" : ", ") + std::string(m.name);
  std::cout << "platform        " << cfg.name << "\n"
            << "topology        " << cfg.topology << "\n"
            << "mechanisms      " << (mechanisms.empty() ? "none" : mechanisms) << "\n"
            << "SMs             " << cfg.num_sms << " (" << cfg.num_sms / cfg.sms_per_cluster
            << " clusters)\n"
            << "L2 banks        " << gpu.num_l2() << "\n"
            << "modules         " << gpu.module_count() << "\n"
            << "sockets         " << gpu.socket_count() << "\n"
            << "elaboration     " << std::fixed << std::setprecision(3) << wall << " s\n"
            << "peak RSS        " << std::setprecision(1) << peak_rss_mb() << " MB\n";
  return kExitOk;
}

// Functional replay: the cache hierarchy without timing (platforms/replay.h, docs/replay.md).
int cmd_replay(const std::vector<std::string>& args) {
  Common c;
  std::string workload, trace, json_out;
  po::options_description d("replay options");
  add_common(d, c);
  d.add_options()("workload,w", po::value(&workload), "built-in workload")(
      "trace,t", po::value(&trace), "Accel-Sim trace (kernelslist.g)")(
      "stats-json", po::value(&json_out), "write statistics as JSON");
  parse(d, args);
  if (!trace.empty() && !workload.empty()) throw UsageError("give --workload or --trace, not both");
  if (c.platform.empty() && workload.empty() && trace.empty())
    throw UsageError(
        "missing --platform NAME and --workload NAME (e.g. 'locsim replay --platform fermi "
        "--workload vecadd'; 'locsim replay --help')");
  if (workload.empty() && trace.empty())
    throw UsageError("missing --workload (see 'locsim list workloads') or --trace");
  ParamRegistry p;
  WorkloadArgs wargs;
  build_params(p, c, &wargs, true);
  GpuConfig cfg = make_gpu_config(p);
  if (!trace.empty() && !wargs.empty())
    throw UsageError("--set workload." + wargs.begin()->first +
                     ": workload parameters do not apply to --trace");
  std::unique_ptr<Workload> wl =
      trace.empty() ? make_workload(workload, wargs) : load_accelsim_trace(trace);
  if (!json_out.empty()) write_text_file(json_out, "");
  // The replay has the cache policies and the CTA policy, not the mechanisms' units or L1
  // treatments: say which configured ones it leaves out rather than drop them silently.
  if (!cfg.mechanisms.empty()) {
    std::string names;
    for (const auto& m : cfg.mechanisms)
      names += (names.empty() ? "" : ", ") + std::string(m->instantiate()->name());
    std::cerr << "locsim replay: note: not modelled by the functional replay: " << names
              << " (docs/replay.md)\n";
  }
  const AddressMap map(cfg.address_map);
  FunctionalHierarchy h(functional_config(cfg), map);
  ReplayResult r = run_replay(h, *wl, cfg.name);
  std::cout << replay_table(h, r);
  if (!json_out.empty())
    write_text_file(
        json_out,
        replay_json(h, r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  return kExitOk;
}

// PAVER's kernel analysis (seed 003 §2.2, §3, Table 2): per kernel the locality graph and its
// cost, the data-reference classes of Fig. 2 and, with a platform, the groups of each scheduler.
int cmd_analyze(const std::vector<std::string>& args) {
  Common c;
  std::string workload, trace, json_out;
  std::string graph_text = "4", block_text = "128", sharers_text = "0";
  po::options_description d("analyze options");
  add_common(d, c);
  d.add_options()("workload,w", po::value(&workload), "built-in workload")(
      "trace,t", po::value(&trace), "Accel-Sim trace (kernelslist.g)")(
      "graph-bytes", po::value(&graph_text), "data-element size of the graph (bytes)")(
      "block-bytes", po::value(&block_text), "block size of the reference classes (bytes)")(
      "max-sharers", po::value(&sharers_text), "leave out elements read by more CTAs (0 = none)")(
      "json", po::value(&json_out), "write the analysis as JSON");
  parse(d, args);
  if (!trace.empty() && !workload.empty()) throw UsageError("give --workload or --trace, not both");
  if (workload.empty() && trace.empty())
    throw UsageError("missing --workload (see 'locsim list workloads') or --trace");
  auto u32 = [](const char* name, const std::string& t) {
    const std::optional<std::uint32_t> v = parse_decimal_u32(t);
    if (!v)
      throw UsageError(std::string(name) + " '" + t + "': must be an integer in [0, 4294967295]");
    return *v;
  };
  const std::uint32_t graph_bytes = u32("--graph-bytes", graph_text),
                      block_bytes = u32("--block-bytes", block_text),
                      max_sharers = u32("--max-sharers", sharers_text);
  for (const auto& [name, v] : {std::pair<const char*, std::uint32_t>{"--graph-bytes", graph_bytes},
                                {"--block-bytes", block_bytes}})
    if (v == 0 || v > 4096 || (v & (v - 1)))
      throw UsageError(std::string(name) + " " + std::to_string(v) +
                       ": must be a power of two in [1, 4096]");
  ParamRegistry p;
  WorkloadArgs wargs;
  build_params(p, c, &wargs, false);
  const GpuConfig cfg = make_gpu_config(p);
  if (!trace.empty() && !wargs.empty())
    throw UsageError("--set workload." + wargs.begin()->first +
                     ": workload parameters do not apply to --trace");
  std::unique_ptr<Workload> wl =
      trace.empty() ? make_workload(workload, wargs) : load_accelsim_trace(trace);
  if (!json_out.empty()) write_text_file(json_out, "");
  const bool with_platform = !c.platform.empty();
  nlohmann::json out;
  out["workload"] = wl->name();
  if (with_platform) out["platform"] = cfg.name;
  out["graph_bytes"] = graph_bytes;
  out["block_bytes"] = block_bytes;
  nlohmann::json ks = nlohmann::json::array();
  double spscore_sum = 0;
  ReferenceClassCounts all;
  std::cout << "locsim analyze: " << wl->name() << (with_platform ? " on " + cfg.name : "") << "\n";
  std::cout << std::fixed;
  for (const auto& kp : wl->kernels()) {
    const Kernel& k = *kp;
    LocalityGraphOptions go;
    go.element_bytes = graph_bytes;
    go.max_sharers = max_sharers;
    const LocalityGraphBuild b = build_locality_graph(k, go);
    const ReferenceClassCounts rc = classify_references(k, block_bytes);
    for (int i = 0; i < 4; ++i) {
      all.accesses[i] += rc.accesses[i];
      all.blocks[i] += rc.blocks[i];
    }
    const LocalityGraph& g = b.graph;
    spscore_sum += g.sparsity_score();
    nlohmann::json e = {{"name", k.name()},
                        {"ctas", k.num_ctas()},
                        {"read_refs", b.read_refs},
                        {"read_elements", b.read_elements},
                        {"shared_elements", b.shared_elements},
                        {"capped_elements", b.capped_elements},
                        {"sharer_lists", b.sharer_lists},
                        {"edges", g.num_edges()},
                        {"total_weight", g.total_weight()},
                        {"spscore", g.sparsity_score()},
                        {"graph_bytes", g.memory_bytes()},
                        {"build_peak_bytes", b.peak_bytes},
                        {"build_s", b.build_seconds}};
    nlohmann::json cls = nlohmann::json::object();
    for (int i = 0; i < 4; ++i)
      cls[to_string(static_cast<ReferenceClass>(i))] = {{"accesses", rc.accesses[i]},
                                                        {"blocks", rc.blocks[i]}};
    e["reference_classes"] = cls;
    e["locality_class"] = rc.locality_class();
    std::cout << "kernel " << k.name() << ": " << k.num_ctas() << " CTAs, " << g.num_edges()
              << " edges, SpScore " << std::setprecision(9) << g.sparsity_score() << ", weight "
              << g.total_weight() << " elements, graph " << std::setprecision(3) << b.build_seconds
              << " s, " << std::setprecision(1) << g.memory_bytes() / 1048576.0
              << " MiB (builder peak " << b.peak_bytes / 1048576.0 << " MiB)\n";
    std::cout << "  reads " << b.read_refs << " element refs, " << b.read_elements
              << " distinct elements, " << b.shared_elements << " shared";
    if (max_sharers) std::cout << ", " << b.capped_elements << " left out by --max-sharers";
    std::cout << "\n  reference classes (" << block_bytes << " B blocks, share of "
              << rc.total_accesses() << " read accesses):";
    for (int i = 0; i < 4; ++i)
      std::cout << " " << to_string(static_cast<ReferenceClass>(i)) << " " << std::setprecision(1)
                << 100.0 * rc.fraction(static_cast<ReferenceClass>(i)) << "%";
    std::cout << " -> " << rc.locality_class() << "\n";
    if (with_platform) {
      const CtaNeeds needs{k.threads_per_cta(), k.regs_per_thread(), k.shared_mem_bytes()};
      const std::uint32_t x =
          std::max<std::uint32_t>(1, max_ctas_per_sm(cfg.dispatcher.resources, needs));
      e["max_ctas_per_sm"] = x;
      nlohmann::json algs = nlohmann::json::object();
      std::cout << "  " << cfg.num_sms << " SMs x " << x << " CTAs:";
      for (const auto& [name, alg] :
           {std::pair<const char*, PaverAlgorithm>{"paver-mst", PaverAlgorithm::Mst},
            {"paver-kway", PaverAlgorithm::Kway},
            {"paver-rb", PaverAlgorithm::Rb}}) {
        PaverOptions o;
        o.algorithm = alg;
        const auto t0 = std::chrono::steady_clock::now();
        const std::vector<CtaGroup> groups = paver_groups(g, o, cfg.num_sms, x);
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const std::uint64_t cap = captured_weight(g, groups);
        const double share = g.total_weight() ? 100.0 * cap / g.total_weight() : 0.0;
        std::size_t lo = groups.empty() ? 0 : groups.front().size(), hi = lo;
        for (const CtaGroup& grp : groups) {
          lo = std::min(lo, grp.size());
          hi = std::max(hi, grp.size());
        }
        algs[name] = {{"groups", groups.size()},
                      {"min_group_ctas", lo},
                      {"max_group_ctas", hi},
                      {"captured_weight", cap},
                      {"partition_s", s}};
        std::cout << " " << name << " " << groups.size() << " groups of " << lo << "-" << hi
                  << " CTAs, " << std::setprecision(1) << share << "% weight inside, "
                  << std::setprecision(3) << s << " s;";
      }
      std::cout << "\n";
      e["schedulers"] = algs;
    }
    ks.push_back(std::move(e));
  }
  const double spscore = wl->kernels().empty() ? 1.0 : spscore_sum / wl->kernels().size();
  std::cout << "benchmark: SpScore " << std::setprecision(9) << spscore
            << " (mean over kernels), class " << all.locality_class() << " (inter-TB "
            << std::setprecision(1)
            << 100.0 * (all.fraction(ReferenceClass::InterTb) +
                        all.fraction(ReferenceClass::IntraAndInterTb))
            << "% of read accesses)\n";
  out["kernels"] = std::move(ks);
  out["spscore"] = spscore;
  out["locality_class"] = all.locality_class();
  if (!json_out.empty())
    write_text_file(json_out,
                    out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  return kExitOk;
}

// Writes a built-in workload as an Accel-Sim trace directory (stimuli/accelsim/trace_export.h).
int cmd_sweep(const std::vector<std::string>& args) {
  SweepOptions o;
  std::vector<std::string> words;
  std::string jobs_text, array_limit_text;
  bool slurm = false;
  std::string task_text;
  po::options_description d("sweep options");
  d.add_options()("spec", po::value(&words), "[collect] sweep file (JSON)")(
      "jobs,j", po::value(&jobs_text), "runs at a time (default: the host's cores)")(
      "out,o", po::value(&o.out), "results directory (default: SPEC without .json, + .out)")(
      "dry-run", po::bool_switch(&o.dry_run), "list the runs, run nothing")(
      "retry-failed", po::bool_switch(&o.retry_failed), "run again the runs that failed before")(
      "progress", po::bool_switch(&o.progress), "progress line even if stderr is not a terminal")(
      "slurm", po::bool_switch(&slurm), "submit a Slurm job array (sbatch), one task per run")(
      "partition", po::value(&o.partition), "Slurm partition (with --slurm)")(
      "time", po::value(&o.time_limit), "Slurm time limit per run, e.g. 30:00 (with --slurm)")(
      "array-limit", po::value(&array_limit_text), "at most K array tasks at once (with --slurm)")(
      "task", po::value(&task_text), "run array task N (what the Slurm job runs)");
  po::positional_options_description pos;
  pos.add("spec", 2);
  parse(d, args, pos);
  const auto jobs = static_cast<unsigned>(
      jobs_text.empty() ? 0 : option_number("--jobs", jobs_text, 0xffffffffu));
  o.array_limit = static_cast<unsigned>(
      array_limit_text.empty() ? 0 : option_number("--array-limit", array_limit_text, 0xffffffffu));
  if (words.size() == 2 && words[0] == "collect") {
    o.mode = SweepOptions::Mode::Collect;
    words.erase(words.begin());
  } else if (words.size() == 2) {
    throw UsageError("unexpected argument '" + words[1] + "' (locsim sweep [collect] SPEC.json)");
  }
  if (words.empty() || words[0] == "collect")
    throw UsageError("missing sweep file (locsim sweep SPEC.json; docs/sweeps.md)");
  const std::string spec = words[0];
  o.spec = spec;
  // A negative or garbage --task is an error, not "no task" (which would run the whole sweep).
  const bool task = !task_text.empty();
  if (slurm + task + (o.mode == SweepOptions::Mode::Collect) > 1)
    throw UsageError("give one of --slurm, --task and collect");
  if (slurm) o.mode = SweepOptions::Mode::Slurm;
  if (task) {
    o.mode = SweepOptions::Mode::Task;
    o.task = static_cast<unsigned>(option_number("--task", task_text, 0xfffffffeu));
  }
  if (!slurm && (!o.partition.empty() || !o.time_limit.empty() || o.array_limit))
    throw UsageError("--partition, --time and --array-limit need --slurm");
  if (o.out.empty()) {
    const std::string stem = spec.size() > 5 && spec.compare(spec.size() - 5, 5, ".json") == 0
                                 ? spec.substr(0, spec.size() - 5)
                                 : spec;
    o.out = stem + ".out";
  }
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (jobs > 4096) throw UsageError("--jobs " + std::to_string(jobs) + ": at most 4096");
  o.jobs = jobs ? jobs : cores;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) throw UsageError("cannot find the locsim executable (/proc/self/exe)");
  o.self.assign(self, static_cast<std::size_t>(n));
  return run_sweep(o);
}

int cmd_export_trace(const std::vector<std::string>& args) {
  Common c;
  std::string workload, dir, max_sources;
  TraceExportOptions opt;
  po::options_description d("export-trace options");
  add_common(d, c);
  d.add_options()("workload,w", po::value(&workload), "built-in workload")(
      "max-sources", po::value(&max_sources),
      "most register sources per line (4 for Accel-Sim's trace parser; 0: no limit, the default, "
      "keeps every dependency on one line)")("dir", po::value(&dir), "output directory");
  po::positional_options_description pos;
  pos.add("dir", 1);
  parse(d, args, pos);
  if (workload.empty()) throw UsageError("missing --workload (see 'locsim list workloads')");
  if (dir.empty()) throw UsageError("export-trace: missing the output directory");
  if (!max_sources.empty())
    opt.max_sources = static_cast<unsigned>(option_number("--max-sources", max_sources, 255));
  ParamRegistry p;
  WorkloadArgs wargs;
  build_params(p, c, &wargs, false);
  make_gpu_config(p);  // a trace carries no platform, but a bad --set is still a mistake
  std::unique_ptr<Workload> wl = make_workload(workload, wargs);
  TraceExportSummary s = export_accelsim_trace(*wl, dir, opt);
  std::cout << "wrote " << dir << "/kernelslist.g: " << s.kernels << " kernel(s), " << s.ctas
            << " CTAs, " << s.warps << " warps, " << s.lines << " instruction lines, " << s.bytes
            << " bytes\n";
  return kExitOk;
}

// The lines of kUsage that describe `cmd` (its synopsis and what it does), as "usage: locsim ...".
std::string command_usage(const std::string& cmd) {
  std::istringstream in(kUsage);
  std::string line, out;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("  " + cmd + " ", 0) == 0) {
      inside = true;
      out = "usage: locsim " + line.substr(2) + "\n";
    } else if (inside && line.rfind("             ", 0) == 0) {
      out += "      " + line + "\n";
    } else if (inside) {
      break;
    }
  }
  return out;
}

}  // namespace

// SystemC prints its copyright banner on every start unless SYSTEMC_DISABLE_COPYRIGHT_MESSAGE is
// set; locsim's output is meant to be read and parsed, so it is off unless
// LOCSIM_SYSTEMC_BANNER is set. Defining main here replaces the SystemC library's own.
int main(int argc, char* argv[]) {
  if (!std::getenv("LOCSIM_SYSTEMC_BANNER")) setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING,
                                          sc_core::SC_DISPLAY | sc_core::SC_THROW);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << "locsim: error: missing command\n" << kUsage;
    return kExitUsage;
  }
  if (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return kExitOk;
  }
  if (args[0] == "version" || args[0] == "--version") {
    if (args.size() > 1) {
      std::cerr << "locsim: error: 'version' takes no arguments, got '" << args[1] << "'\n";
      return kExitUsage;
    }
    std::cout << "locsim " << locsim::locsim_version() << " (commit " << locsim::locsim_commit()
              << ")\n";
    return kExitOk;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "run") return cmd_run(args);
    if (cmd == "list") return cmd_list(args);
    if (cmd == "params") return cmd_params(args);
    if (cmd == "elaborate") return cmd_elaborate(args);
    if (cmd == "replay") return cmd_replay(args);
    if (cmd == "export-trace") return cmd_export_trace(args);
    if (cmd == "sweep") return cmd_sweep(args);
    if (cmd == "analyze") return cmd_analyze(args);
    std::string hint = "try 'locsim help'";
    for (const char* known : {"run", "list", "params", "elaborate", "replay", "export-trace",
                              "analyze", "sweep", "version", "help"})
      if (edit_distance(cmd, known) <= 2) {
        hint = std::string("did you mean '") + known + "'?";
        break;
      }
    throw UsageError("unknown command '" + cmd + "' (" + hint + ")");
  } catch (const HelpRequested& h) {
    std::cout << command_usage(cmd) << h.options;
    return kExitOk;
  } catch (const UsageError& e) {
    std::cerr << "locsim: error: " << e.what() << "\n";
  } catch (const ConfigError& e) {
    std::cerr << "locsim: error: " << e.what() << "\n";
  } catch (const po::error& e) {
    std::cerr << "locsim: error: " << e.what() << "\n";
  } catch (const sc_core::sc_report& e) {
    std::cerr << "locsim: simulation failure: " << e.what() << "\n";
    return kExitSimFailure;
  } catch (const std::exception& e) {
    std::cerr << "locsim: error: " << e.what() << "\n";
  }
  return kExitUsage;
}

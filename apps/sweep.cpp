#include "apps/sweep.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "model/params.h"
#include "model/stats_report.h"
#include "model/sweep_plan.h"
#include "model/version.h"

namespace locsim {

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return {};
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The commit of the locsim build that wrote a run's statistics (host.locsim_commit), or "" when
// the file is missing or unreadable.
std::string run_commit(const std::string& json_path) {
  const std::string text = read_file(json_path);
  if (text.empty()) return "";
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.contains("host") || !j["host"].is_object()) return "";
  const auto it = j["host"].find("locsim_commit");
  return it != j["host"].end() && it->is_string() ? it->get<std::string>() : "";
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

void make_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST)
    throw ConfigError("cannot create directory '" + path + "': " + std::strerror(errno));
}

std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

// The run's numeric statistics as dotted names (l1d.hits); lists (per-port and per-link arrays),
// the echoed configuration and per-kernel/per-instance breakdowns stay in the run's JSON.
void flatten(const nlohmann::json& j, const std::string& prefix,
             std::map<std::string, double>& out) {
  static const std::set<std::string> skip = {"config", "kernels", "instances", "workload_args"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (prefix.empty() && skip.count(it.key())) continue;
    const std::string name = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it.value().is_object())
      flatten(it.value(), name, out);
    else if (it.value().is_number())
      out[name] = it.value().get<double>();
    else if (it.value().is_boolean())
      out[name] = it.value().get<bool>() ? 1.0 : 0.0;
  }
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number_text(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

struct Outcome {
  const SweepRun* run = nullptr;
  int exit_code = -1;  // -1: not run
  std::string error;
  std::map<std::string, double> stats;
};

class Database {
 public:
  explicit Database(const std::string& path) {
    std::remove(path.c_str());  // rebuilt from the run files on every collection
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK)
      throw ConfigError("cannot create '" + path + "': " + sqlite3_errmsg(db_));
  }
  ~Database() { sqlite3_close(db_); }
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string e = err ? err : "?";
      sqlite3_free(err);
      throw ConfigError("sqlite: " + e);
    }
  }
  // One row; values[i] empty and numeric[i] set: a REAL, otherwise TEXT (NULL when absent).
  void insert(const std::string& table, std::size_t columns,
              const std::vector<std::pair<bool, std::string>>& values) {
    if (!stmt_) {
      std::string sql = "INSERT INTO " + table + " VALUES (";
      for (std::size_t i = 0; i < columns; ++i) sql += i ? ",?" : "?";
      sql += ")";
      if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
        throw ConfigError(std::string("sqlite: ") + sqlite3_errmsg(db_));
    }
    sqlite3_reset(stmt_);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const int c = static_cast<int>(i + 1);
      if (values[i].second.empty() && values[i].first)
        sqlite3_bind_null(stmt_, c);
      else if (values[i].first)
        sqlite3_bind_double(stmt_, c, std::stod(values[i].second));
      else
        sqlite3_bind_text(stmt_, c, values[i].second.c_str(), -1, SQLITE_TRANSIENT);
    }
    if (sqlite3_step(stmt_) != SQLITE_DONE)
      throw ConfigError(std::string("sqlite: ") + sqlite3_errmsg(db_));
  }
  void finish() {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
  }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

std::string quote_ident(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// results.csv and results.sqlite (table `runs`): id, platform, workload, every parameter key,
// exit_code, error, then every statistic any run reported.
void collect(const std::string& out, const SweepPlan& plan, const std::vector<Outcome>& results) {
  std::set<std::string> stat_names;
  for (const auto& r : results)
    for (const auto& kv : r.stats) stat_names.insert(kv.first);
  std::vector<std::string> columns = {"id", "platform", "workload"};
  if (plan.has_gpgpusim_configs) columns.push_back("gpgpusim_config");
  for (const auto& k : plan.parameter_keys) columns.push_back(k);
  columns.push_back("exit_code");
  columns.push_back("error");
  const std::size_t first_stat = columns.size();
  const std::set<std::string> taken(columns.begin(), columns.end());
  // A statistic named like a parameter (none today) keeps its value under "stat.<name>".
  for (const auto& s : stat_names) columns.push_back(taken.count(s) ? "stat." + s : s);

  std::ostringstream csv;
  Database db(out + "/results.sqlite");
  std::string create = "CREATE TABLE runs (";
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) csv << ",";
    csv << csv_field(columns[i]);
    const bool real = i >= first_stat || columns[i] == "exit_code";
    create += (i ? ", " : "") + quote_ident(columns[i]) + (real ? " REAL" : " TEXT");
  }
  csv << "\n";
  db.exec(create + ")");
  db.exec("BEGIN");
  for (const auto& r : results) {
    std::vector<std::pair<bool, std::string>> row = {
        {false, r.run->id}, {false, r.run->platform}, {false, r.run->workload}};
    if (plan.has_gpgpusim_configs) row.push_back({false, r.run->gpgpusim_config});
    for (const auto& k : plan.parameter_keys) {
      std::string v;
      for (const auto& kv : r.run->sets)
        if (kv.first == k) v = kv.second;
      row.push_back({false, v});
    }
    row.push_back({true, r.exit_code < 0 ? "" : std::to_string(r.exit_code)});
    row.push_back({false, r.error});
    for (const auto& s : stat_names) {
      auto it = r.stats.find(s);
      row.push_back({true, it == r.stats.end() ? "" : number_text(it->second)});
    }
    for (std::size_t i = 0; i < row.size(); ++i) csv << (i ? "," : "") << csv_field(row[i].second);
    csv << "\n";
    db.insert("runs", columns.size(), row);
  }
  db.finish();
  db.exec("COMMIT");
  write_text_file(out + "/results.csv", csv.str());
}

// Reads every run's status, error line and statistics; returns the number that failed.
std::size_t gather(const std::string& dir, std::vector<Outcome>& results) {
  std::size_t failed = 0;
  for (auto& r : results) {
    const std::string base = dir + "/" + r.run->id;
    const std::string status = read_file(base + ".status");
    if (status.empty()) continue;
    r.exit_code = std::atoi(status.c_str());
    if (r.exit_code != 0) {
      ++failed;
      r.error = last_line(read_file(base + ".err"));
      continue;
    }
    try {
      flatten(nlohmann::json::parse(read_file(base + ".json")), "", r.stats);
    } catch (const nlohmann::json::exception&) {
      r.exit_code = -1;
      r.error = "unreadable statistics " + base + ".json";
      ++failed;
    }
  }
  return failed;
}

std::string duration_text(double s) {
  const long t = static_cast<long>(s + 0.5);
  std::ostringstream os;
  if (t >= 3600) os << t / 3600 << "h";
  if (t >= 60) os << (t / 60) % 60 << "m";
  os << t % 60 << "s";
  return os.str();
}

// Starts `locsim run` for `r` (stdout to /dev/null, stderr to DIR/ID.err, statistics to
// DIR/ID.json); its old status is removed first, so an interrupted run is run again.
pid_t start_run(const SweepRun& r, const std::string& dir, const std::string& self) {
  const std::string base = dir + "/" + r.id;
  std::remove((base + ".status").c_str());
  std::vector<std::string> args = {self, "run", "--platform", r.platform, "--workload", r.workload};
  if (!r.gpgpusim_config.empty()) {
    args.push_back("--gpgpusim-config");
    args.push_back(r.gpgpusim_config);
  }
  for (const auto& kv : r.sets) {
    args.push_back("--set");
    args.push_back(kv.first + "=" + kv.second);
  }
  for (const char* a : {"--quiet", "--stats-json"}) args.push_back(a);
  args.push_back(base + ".json");
  const pid_t pid = fork();
  if (pid < 0) throw ConfigError(std::string("cannot start a run: ") + std::strerror(errno));
  if (pid == 0) {
    const int err = ::open((base + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    const int null = ::open("/dev/null", O_RDWR);
    if (err >= 0) dup2(err, STDERR_FILENO);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      dup2(null, STDIN_FILENO);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(self.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

int exit_code_of(int st) {
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

// Runs a command line, returns its exit code and stdout.
int capture(const std::string& cmd, std::string& out) {
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return -1;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return exit_code_of(pclose(f));
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) throw ConfigError("cannot read the working directory");
  return std::string(cwd) + "/" + path;
}

}  // namespace

int run_sweep(const SweepOptions& o) {
  const std::string text = read_file(o.spec);
  if (text.empty() && !exists(o.spec)) throw ConfigError("cannot read sweep file '" + o.spec + "'");
  nlohmann::json spec;
  try {
    spec = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError("sweep " + json_error_message(o.spec, text, e));
  }
  const SweepPlan plan = expand_sweep(spec, o.spec);
  if (o.dry_run) {
    for (const auto& r : plan.runs) {
      std::cout << r.id << "  run --platform " << r.platform << " --workload " << r.workload;
      if (!r.gpgpusim_config.empty()) std::cout << " --gpgpusim-config " << r.gpgpusim_config;
      for (const auto& kv : r.sets) std::cout << " --set " << kv.first << "=" << kv.second;
      std::cout << "\n";
    }
    std::cout << plan.runs.size() << " runs\n";
    return 0;
  }
  make_dir(o.out);
  const std::string dir = o.out + "/runs";
  make_dir(dir);

  std::vector<Outcome> results(plan.runs.size());
  std::vector<std::size_t> pending;
  std::size_t stale = 0;
  std::string stale_commit;
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    results[i].run = &plan.runs[i];
    const std::string base = dir + "/" + plan.runs[i].id;
    const std::string status = read_file(base + ".status");
    // Resumable: a finished run keeps its files; a failed one runs again with --retry-failed.
    bool done = !status.empty() && (status == "0\n" || !o.retry_failed);
    // A finished run of another locsim build is not a result of this one: run it again.
    if (done && status == "0\n") {
      const std::string commit = run_commit(base + ".json");
      if (commit != locsim::locsim_commit()) {
        done = false;
        ++stale;
        stale_commit = commit;
      }
    }
    if (!done) pending.push_back(i);
  }
  if (stale)
    std::fprintf(stderr,
                 "[sweep] %zu finished runs in %s came from another locsim build (commit %s, "
                 "this is %s): they run again\n",
                 stale, dir.c_str(), stale_commit.empty() ? "unknown" : stale_commit.c_str(),
                 locsim::locsim_commit());

  using Mode = SweepOptions::Mode;
  if (o.mode == Mode::Collect) {
    const std::size_t failed = gather(dir, results);
    std::size_t missing = 0;
    for (const auto& r : results) missing += r.exit_code < 0 && r.error.empty();
    collect(o.out, plan, results);
    std::fprintf(stderr, "[sweep] %zu runs, %zu failed, %zu not finished; results in %s\n",
                 plan.runs.size(), failed, missing, (o.out + "/results.csv").c_str());
    return failed || missing ? 3 : 0;
  }
  const std::string tasks_file = o.out + "/slurm_tasks.txt";
  if (o.mode == Mode::Task) {
    // The array task's run: line `task` of the list the submission wrote.
    std::istringstream in(read_file(tasks_file));
    std::string id;
    for (unsigned k = 0; std::getline(in, id) && k < o.task; ++k) {
    }
    const SweepRun* run = nullptr;
    for (const auto& r : plan.runs)
      if (r.id == id) run = &r;
    if (!run)
      throw ConfigError("sweep task " + std::to_string(o.task) + ": no such run in " + tasks_file +
                        " (was the sweep file changed after submitting?)");
    int st = 0;
    const pid_t pid = start_run(*run, dir, o.self);
    if (waitpid(pid, &st, 0) < 0) throw ConfigError("sweep task: lost its run");
    const int code = exit_code_of(st);
    write_text_file(dir + "/" + run->id + ".status", std::to_string(code) + "\n");
    return code;
  }
  if (o.mode == Mode::Slurm) {
    if (pending.empty()) {
      std::fprintf(stderr, "[sweep] nothing to submit: all %zu runs are done\n", plan.runs.size());
      collect(o.out, plan, results);
      return 0;
    }
    std::string ids;
    for (std::size_t i : pending) ids += plan.runs[i].id + "\n";
    write_text_file(tasks_file, ids);
    const std::string out_abs = absolute(o.out), spec_abs = absolute(o.spec);
    std::ostringstream job;
    job << "#!/bin/sh\n"
        << "#SBATCH --job-name=locsim-sweep\n"
        << "#SBATCH --array=0-" << pending.size() - 1
        << (o.array_limit ? "%" + std::to_string(o.array_limit) : std::string()) << "\n"
        << "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
        << "#SBATCH --output=" << out_abs << "/runs/slurm_%A_%a.log\n";
    if (!o.partition.empty()) job << "#SBATCH --partition=" << o.partition << "\n";
    if (!o.time_limit.empty()) job << "#SBATCH --time=" << o.time_limit << "\n";
    job << "exec " << shell_quote(o.self) << " sweep " << shell_quote(spec_abs) << " -o "
        << shell_quote(out_abs) << " --task \"$SLURM_ARRAY_TASK_ID\"\n";
    const std::string script = o.out + "/slurm_job.sh";
    write_text_file(script, job.str());
    std::string sbatch_out;
    const int rc = capture("sbatch --parsable " + shell_quote(script) + " 2>&1", sbatch_out);
    if (rc != 0)
      throw ConfigError("sbatch failed (exit " + std::to_string(rc) +
                        "): " + last_line(sbatch_out));
    const std::string job_id = last_line(sbatch_out);
    std::printf("%s\n", job_id.c_str());
    std::fprintf(stderr,
                 "[sweep] submitted job array %s: %zu runs (%zu already done); gather with "
                 "'locsim sweep collect %s -o %s'\n",
                 job_id.c_str(), pending.size(), plan.runs.size() - pending.size(), o.spec.c_str(),
                 o.out.c_str());
    return 0;
  }

  const bool show = o.progress || isatty(STDERR_FILENO);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t started = 0, finished = 0, failed_now = 0;
  std::map<pid_t, std::size_t> running;
  auto report = [&]() {
    if (!show) return;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string eta = "?";
    if (finished) eta = duration_text(el / finished * (pending.size() - finished));
    std::fprintf(stderr, "\r[sweep] %zu/%zu runs, %zu failed, %zu running, ETA %s   ", finished,
                 pending.size(), failed_now, running.size(), eta.c_str());
  };
  std::fprintf(stderr, "[sweep] %zu runs, %zu to run, %zu already done, %u at a time\n",
               plan.runs.size(), pending.size(), plan.runs.size() - pending.size(), o.jobs);
  while (finished < pending.size()) {
    while (started < pending.size() && running.size() < o.jobs) {
      const pid_t pid = start_run(plan.runs[pending[started]], dir, o.self);
      running[pid] = pending[started++];
      report();
    }
    int st = 0;
    const pid_t pid = waitpid(-1, &st, 0);
    if (pid < 0) break;
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const std::size_t i = it->second;
    running.erase(it);
    const int code = exit_code_of(st);
    write_text_file(dir + "/" + plan.runs[i].id + ".status", std::to_string(code) + "\n");
    ++finished;
    if (code != 0) ++failed_now;
    report();
  }
  if (show) std::fprintf(stderr, "\n");

  const std::size_t failed = gather(dir, results);
  collect(o.out, plan, results);
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "[sweep] %zu runs, %zu failed, %s; results in %s/results.csv and %s\n",
               plan.runs.size(), failed, duration_text(el).c_str(), o.out.c_str(),
               (o.out + "/results.sqlite").c_str());
  return failed ? 3 : 0;
}

}  // namespace locsim

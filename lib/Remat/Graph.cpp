//===- Graph.cpp - remat graphs, their JSON and the schedule simulator ----===//

#include "tad/Remat/Graph.h"

#include "JsonReader.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace tad::remat;

// Sizes stay exact in the double JSON numbers are read as, and the sum of
// all sizes (the most any schedule holds) stays far from int64 overflow.
static constexpr double kMaxNodeBytes = 9007199254740992.0; // 2^53
static constexpr int64_t kMaxTotalBytes = int64_t(1) << 62;

void Graph::addEdge(int input, int user) {
  nodes[input].users.push_back(user);
  nodes[user].inputs.push_back(input);
}

int64_t Graph::getComputeFootprint(int v) const {
  int64_t bytes = nodes[v].bytes + nodes[v].transient;
  for (int i : nodes[v].inputs)
    bytes += nodes[i].bytes;
  return bytes;
}

/// The name a node's "id" (or a link's end) gives: an integer or a string.
static std::string getKey(const JsonScalar &v) {
  if (v.kind == JsonScalar::Kind::number && v.integral)
    return std::to_string(v.integer);
  if (v.kind == JsonScalar::Kind::string)
    return v.string;
  return "";
}

/// One node object as read, before its checks.
struct NodeFields {
  JsonScalar id, cost, ram, transient, recomputable;
  bool hasId = false, hasCost = false, hasRam = false, hasTransient = false,
       hasRecomputable = false;
};

/// Checks a node's fields and appends it; false with `error` set.
static bool addNode(const NodeFields &f, Graph &graph,
                    llvm::StringMap<int> &index, int64_t &totalBytes,
                    std::string &error) {
  using Kind = JsonScalar::Kind;
  std::string name = f.hasId ? getKey(f.id) : "";
  std::string where = "node " + std::to_string(graph.nodes.size());
  if (name.empty() || !f.hasCost || f.cost.kind != Kind::number ||
      !f.hasRam || f.ram.kind != Kind::number) {
    error = where + ": expected \"id\", \"cost_cpu\" and \"cost_ram\"";
    return false;
  }
  // Sizes are whole bytes; Checkmate's files write them as 4096 or 4096.0.
  const double costValue = f.cost.number, ramValue = f.ram.number;
  if (ramValue != std::floor(ramValue) || std::abs(ramValue) > kMaxNodeBytes ||
      !std::isfinite(costValue)) {
    error = where + " (\"" + name +
            "\"): cost_ram must be a whole number of bytes up to 2^53 and "
            "cost_cpu finite";
    return false;
  }
  int64_t bytes = int64_t(ramValue);
  if (costValue < 0 || bytes < 0) {
    error = where + " (\"" + name + "\"): costs and sizes must be >= 0";
    return false;
  }
  totalBytes += bytes;
  if (totalBytes > kMaxTotalBytes) {
    error = where + " (\"" + name + "\"): the graph's sizes add up to more "
            "than 2^62 bytes";
    return false;
  }
  if (!index.try_emplace(name, graph.size()).second) {
    error = where + ": the id \"" + name + "\" appears twice";
    return false;
  }
  Node node;
  node.name = name;
  node.cost = costValue;
  node.bytes = bytes;
  // Optional fields of graphs that the remat pass writes.
  if (f.hasTransient && f.transient.kind == Kind::number) {
    double transient = f.transient.number;
    if (transient < 0 || transient != std::floor(transient) ||
        transient > kMaxNodeBytes) {
      error = where + " (\"" + name +
              "\"): transient_ram must be a whole number of bytes >= 0";
      return false;
    }
    node.transient = int64_t(transient);
    totalBytes += node.transient;
  }
  if (f.hasRecomputable && f.recomputable.kind == Kind::boolean)
    node.recomputable = f.recomputable.boolean;
  graph.nodes.push_back(std::move(node));
  return true;
}

bool tad::remat::parseGraphJson(llvm::StringRef text, Graph &graph,
                                std::string &error) {
  // Read as a stream (JsonReader), not as a document: the links of a dense
  // graph are millions of small objects.
  JsonReader reader(text);
  graph.nodes.clear();
  // Every link looks up two ids: a hash map, not a tree of string
  // compares (over half of reading a graph of 10,000 nodes).
  llvm::StringMap<int> index;
  int64_t totalBytes = 0;
  bool sawNodes = false, sawLinks = false;
  // The first error of the graph itself; reported when the JSON is valid.
  std::string problem;
  // Links resolve once every node is read; those that come before the
  // nodes wait here by name.
  struct PendingLink {
    std::string source, target;
    bool complete;
  };
  std::vector<PendingLink> pending;
  std::vector<std::pair<int, int>> edges;
  auto addLink = [&](const std::string &source, const std::string &target,
                     bool complete) {
    if (!complete) {
      problem = "a link without \"source\" and \"target\"";
      return;
    }
    auto s = index.find(source), t = index.find(target);
    if (s == index.end() || t == index.end()) {
      problem = "a link names the unknown node \"" +
                (s == index.end() ? source : target) + "\"";
      return;
    }
    if (s->second >= t->second) {
      problem = "the link \"" + s->first().str() + "\" -> \"" +
                t->first().str() +
                "\" goes backwards: nodes must be in topological order";
      return;
    }
    edges.push_back({s->second, t->second});
  };
  auto readNodes = [&] {
    sawNodes = true;
    return reader.readArray([&] {
      NodeFields f;
      if (!reader.atObject()) {
        if (problem.empty())
          problem = "node " + std::to_string(graph.nodes.size()) +
                    ": expected \"id\", \"cost_cpu\" and \"cost_ram\"";
        return reader.skipValue();
      }
      bool ok = reader.readObject([&](const std::string &key) {
        auto field = [&](JsonScalar &into, bool &has) {
          has = true;
          return reader.readScalar(into);
        };
        if (key == "id")
          return field(f.id, f.hasId);
        if (key == "cost_cpu")
          return field(f.cost, f.hasCost);
        if (key == "cost_ram")
          return field(f.ram, f.hasRam);
        if (key == "transient_ram")
          return field(f.transient, f.hasTransient);
        if (key == "recomputable")
          return field(f.recomputable, f.hasRecomputable);
        return reader.skipValue();
      });
      if (ok && problem.empty())
        addNode(f, graph, index, totalBytes, problem);
      return ok;
    });
  };
  auto readLinks = [&] {
    sawLinks = true;
    return reader.readArray([&] {
      JsonScalar source, target;
      bool hasSource = false, hasTarget = false;
      bool ok = !reader.atObject()
                    ? reader.skipValue()
                    : reader.readObject([&](const std::string &key) {
                        if (key == "source")
                          return hasSource = true, reader.readScalar(source);
                        if (key == "target")
                          return hasTarget = true, reader.readScalar(target);
                        return reader.skipValue();
                      });
      if (!ok || !problem.empty())
        return ok;
      bool complete = hasSource && hasTarget;
      if (sawNodes)
        addLink(getKey(source), getKey(target), complete);
      else
        pending.push_back({getKey(source), getKey(target), complete});
      return true;
    });
  };
  bool isObject = reader.atObject();
  bool valid =
      isObject
          ? reader.readObject([&](const std::string &key) {
              if (key == "nodes" && !sawNodes && reader.atArray())
                return readNodes();
              if (key == "links" && !sawLinks && reader.atArray())
                return readLinks();
              return reader.skipValue();
            })
          : reader.skipValue();
  if (!valid || !reader.atEnd()) {
    error = "invalid JSON: " + reader.error();
    return false;
  }
  if (!isObject || !sawNodes || !sawLinks) {
    error = "expected an object with the arrays \"nodes\" and \"links\"";
    return false;
  }
  for (const PendingLink &link : pending)
    if (problem.empty())
      addLink(link.source, link.target, link.complete);
  if (!problem.empty()) {
    error = problem;
    return false;
  }
  // Each node's lists at their final size: growing them edge by edge
  // would leave up to half of their capacity unused.
  std::vector<int> inputCount(graph.size(), 0), userCount(graph.size(), 0);
  for (auto [source, target] : edges) {
    ++userCount[source];
    ++inputCount[target];
  }
  for (int v = 0; v < graph.size(); ++v) {
    graph.nodes[v].inputs.reserve(inputCount[v]);
    graph.nodes[v].users.reserve(userCount[v]);
  }
  for (auto [source, target] : edges)
    graph.addEdge(source, target);
  return true;
}

ScheduleStats tad::remat::simulate(const Graph &graph,
                                   const std::vector<Event> &schedule) {
  ScheduleStats stats;
  std::vector<char> resident(graph.size(), 0), computed(graph.size(), 0);
  int64_t bytes = 0;
  auto fail = [&](const std::string &why) {
    stats.valid = false;
    stats.error = why;
    return stats;
  };
  for (size_t e = 0; e < schedule.size(); ++e) {
    const Event &event = schedule[e];
    if (event.node < 0 || event.node >= graph.size())
      return fail("event " + std::to_string(e) + " names no node");
    const Node &node = graph.nodes[event.node];
    if (event.kind == Event::compute) {
      if (resident[event.node])
        return fail("event " + std::to_string(e) + " computes " + node.name +
                    ", which is resident already");
      for (int i : node.inputs)
        if (!resident[i])
          return fail("event " + std::to_string(e) + " computes " +
                      node.name + " without its input " +
                      graph.nodes[i].name);
      if (computed[event.node] && !node.recomputable)
        return fail("event " + std::to_string(e) + " recomputes " +
                    node.name + ", which must be computed once");
      resident[event.node] = computed[event.node] = 1;
      bytes += node.bytes;
      stats.cost += node.cost;
      ++stats.computes;
      stats.peak = std::max(stats.peak, bytes + node.transient);
    } else {
      if (!resident[event.node])
        return fail("event " + std::to_string(e) + " frees " + node.name +
                    ", which is not resident");
      resident[event.node] = 0;
      bytes -= node.bytes;
    }
  }
  for (int v = 0; v < graph.size(); ++v)
    if (!computed[v])
      return fail("node " + graph.nodes[v].name + " is never computed");
  stats.valid = true;
  return stats;
}

std::vector<Event> tad::remat::storeAllSchedule(const Graph &graph) {
  std::vector<Event> schedule;
  std::vector<int> remaining(graph.size());
  for (int v = 0; v < graph.size(); ++v)
    remaining[v] = int(graph.nodes[v].users.size());
  for (int v = 0; v < graph.size(); ++v) {
    schedule.push_back({Event::compute, v});
    for (int i : graph.nodes[v].inputs)
      if (--remaining[i] == 0)
        schedule.push_back({Event::free, i});
    if (graph.nodes[v].users.empty())
      schedule.push_back({Event::free, v});
  }
  return schedule;
}

std::string tad::remat::graphToJson(const Graph &graph) {
  llvm::json::Array nodes, links;
  for (const Node &node : graph.nodes) {
    llvm::json::Object object{{"id", node.name},
                              {"cost_cpu", node.cost},
                              {"cost_ram", node.bytes}};
    if (node.transient)
      object["transient_ram"] = node.transient;
    if (!node.recomputable)
      object["recomputable"] = false;
    nodes.push_back(std::move(object));
    for (int user : node.users)
      links.push_back(llvm::json::Object{{"source", node.name},
                                         {"target", graph.nodes[user].name}});
  }
  return llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                    {"directed", true},
                                    {"nodes", std::move(nodes)},
                                    {"links", std::move(links)}}))
      .str();
}

std::string tad::remat::scheduleToJson(const Graph &graph,
                                       const std::vector<Event> &schedule,
                                       const ScheduleStats &stats,
                                       const std::string &solver,
                                       int64_t budget) {
  // Written by hand rather than through json::Value so that the summary
  // comes first and each event takes one line: schedules are read by people
  // and diffed, and have thousands of events.
  auto quote = [](const std::string &s) {
    return llvm::formatv("{0}", llvm::json::Value(s)).str();
  };
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\n";
  if (!solver.empty())
    os << "  \"solver\": " << quote(solver) << ",\n";
  if (budget >= 0)
    os << "  \"budget\": " << budget << ",\n";
  os << "  \"cost\": " << llvm::formatv("{0}", llvm::json::Value(stats.cost))
     << ",\n  \"peak\": " << stats.peak
     << ",\n  \"computes\": " << stats.computes << ",\n  \"events\": [";
  for (size_t i = 0; i < schedule.size(); ++i) {
    const Event &event = schedule[i];
    os << (i ? ",\n    " : "\n    ") << "{\""
       << (event.kind == Event::compute ? "compute" : "free")
       << "\": " << quote(graph.nodes[event.node].name) << "}";
  }
  os << (schedule.empty() ? "]\n}" : "\n  ]\n}");
  return text;
}

//===- Graph.cpp - remat graphs, their JSON and the schedule simulator ----===//

#include "tad/Remat/Graph.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>

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

bool tad::remat::parseGraphJson(const std::string &text, Graph &graph,
                                std::string &error) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    error = "invalid JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Array *nodes = root ? root->getArray("nodes") : nullptr;
  const llvm::json::Array *links = root ? root->getArray("links") : nullptr;
  if (!nodes || !links) {
    error = "expected an object with the arrays \"nodes\" and \"links\"";
    return false;
  }
  std::map<std::string, int> index;
  auto key = [](const llvm::json::Value &v) -> std::string {
    if (auto i = v.getAsInteger())
      return std::to_string(*i);
    if (auto s = v.getAsString())
      return s->str();
    return "";
  };
  graph.nodes.clear();
  int64_t totalBytes = 0;
  for (const llvm::json::Value &n : *nodes) {
    const llvm::json::Object *node = n.getAsObject();
    const llvm::json::Value *id = node ? node->get("id") : nullptr;
    std::optional<double> cost, ram;
    if (node) {
      cost = node->getNumber("cost_cpu");
      ram = node->getNumber("cost_ram");
    }
    std::string name = id ? key(*id) : "";
    std::string where = "node " + std::to_string(graph.nodes.size());
    if (name.empty() || !cost.has_value() || !ram.has_value()) {
      error = where + ": expected \"id\", \"cost_cpu\" and \"cost_ram\"";
      return false;
    }
    // Sizes are whole bytes; Checkmate's files write them as 4096 or 4096.0.
    const double costValue = cost.value(), ramValue = ram.value();
    if (ramValue != std::floor(ramValue) ||
        std::abs(ramValue) > kMaxNodeBytes || !std::isfinite(costValue)) {
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
    if (!index.emplace(name, graph.size()).second) {
      error = where + ": the id \"" + name + "\" appears twice";
      return false;
    }
    Node node_;
    node_.name = name;
    node_.cost = costValue;
    node_.bytes = bytes;
    // Optional fields of graphs that the remat pass writes.
    if (std::optional<double> transient = node->getNumber("transient_ram")) {
      if (*transient < 0 || *transient != std::floor(*transient) ||
          *transient > kMaxNodeBytes) {
        error = where + " (\"" + name +
                "\"): transient_ram must be a whole number of bytes >= 0";
        return false;
      }
      node_.transient = int64_t(*transient);
      totalBytes += node_.transient;
    }
    if (std::optional<bool> recomputable = node->getBoolean("recomputable"))
      node_.recomputable = *recomputable;
    graph.nodes.push_back(std::move(node_));
  }
  for (const llvm::json::Value &l : *links) {
    const llvm::json::Object *link = l.getAsObject();
    const llvm::json::Value *source = link ? link->get("source") : nullptr;
    const llvm::json::Value *target = link ? link->get("target") : nullptr;
    if (!source || !target) {
      error = "a link without \"source\" and \"target\"";
      return false;
    }
    auto s = index.find(key(*source)), t = index.find(key(*target));
    if (s == index.end() || t == index.end()) {
      error = "a link names the unknown node \"" +
              (s == index.end() ? key(*source) : key(*target)) + "\"";
      return false;
    }
    if (s->second >= t->second) {
      error = "the link \"" + s->first + "\" -> \"" + t->first +
              "\" goes backwards: nodes must be in topological order";
      return false;
    }
    graph.addEdge(s->second, t->second);
  }
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

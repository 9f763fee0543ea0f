//===- SearchMemo.cpp - the solver's answers, shared ----------------------===//

#include "tad/Remat/SearchMemo.h"

using namespace tad::remat;

std::string tad::remat::graphKey(const Graph &graph) {
  std::string key;
  auto add = [&](auto value) {
    key.append(reinterpret_cast<const char *>(&value), sizeof(value));
  };
  for (const Node &node : graph.nodes) {
    add(node.cost);
    add(node.bytes);
    add(node.transient);
    add(node.recomputable);
    add(node.inputs.size());
    for (int input : node.inputs)
      add(input);
  }
  return key;
}

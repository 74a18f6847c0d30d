// Every operation of a topology by id: its name, type and the folder path its tensors are
// dumped under ("3_Decoder/1_Linear"), whether the topology came live from the probe or from
// an opened dump's model file. The one lookup the workspace and the inspector share.
#pragma once
#include <map>
#include <string>

#include "dump/topology.h"
#include "live/live_protocol.h"

namespace llmscope {

struct CatalogOp {
    std::string name, type;
    std::string path; // op folders from the model down, '/'-separated
};

class OpCatalog {
public:
    OpCatalog() = default;
    explicit OpCatalog(const live::Topology &t);
    explicit OpCatalog(const TopoNode &model);

    const CatalogOp *find(const std::string &id) const;
    size_t size() const { return m_ops.size(); }

private:
    std::map<std::string, CatalogOp> m_ops;
};

} // namespace llmscope

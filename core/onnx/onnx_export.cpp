#include "core/onnx/onnx_export.h"

#include <algorithm>

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/dump/dump_index.h"
#include "core/dump/dump_layout.h"
#include "core/util/error.h"

namespace fs = std::filesystem;

namespace llmscope {

namespace {
// The topology files hold no shapes: a float tensor of unknown dims (the checker wants a shape).
void setFloatType(onnx::ValueInfoProto *v)
{
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("unknown");
}

// The nodes of a graph: a model's operations' children, or a layer's children.
std::vector<const TopoNode *> nodesOf(const TopoNode &graph)
{
    std::vector<const TopoNode *> out;
    for (const TopoNode &c : graph.children) {
        if (c.children.empty())
            out.push_back(&c);
        for (const TopoNode &n : c.children)
            out.push_back(&n);
    }
    return out;
}
} // namespace

void writeOnnx(const TopoNode &graph, const std::string &path)
{
    onnx::ModelProto model;
    model.set_ir_version(onnx::IR_VERSION);
    model.set_producer_name("llmscope");
    model.set_doc_string("Topology only (no weights): " + graph.name);
    auto *standard = model.add_opset_import();
    standard->set_domain("");
    standard->set_version(17);
    auto *ggml = model.add_opset_import();
    ggml->set_domain("ggml");
    ggml->set_version(1);
    onnx::GraphProto *g = model.mutable_graph();
    g->set_name(graph.name.empty() ? "graph" : graph.name);

    // SSA: each node's output is named by its op id; an input names the op that last wrote
    // that tensor, or a graph input for what no node computes.
    std::map<std::string, std::string> producer;
    std::set<std::string> inputs;
    std::string last;
    for (const TopoNode *n : nodesOf(graph)) {
        onnx::NodeProto *node = g->add_node();
        const std::string out = n->id.empty() ? n->name : n->id;
        node->set_name(out + " " + n->name);
        node->set_op_type(n->type.empty() ? "Op" : n->type);
        node->set_domain("ggml");
        for (const std::string &in : n->inTensors) {
            const auto p = producer.find(in);
            if (p != producer.end()) {
                node->add_input(p->second);
            } else {
                node->add_input(in);
                if (inputs.insert(in).second) {
                    onnx::ValueInfoProto *v = g->add_input();
                    v->set_name(in);
                    setFloatType(v);
                }
            }
        }
        node->add_output(out);
        for (const std::string &o : n->outTensors)
            producer[o] = out;
        if (n->outTensors.empty())
            producer[n->name] = out;
        auto *name = node->add_attribute();
        name->set_name("tensor_name");
        name->set_type(onnx::AttributeProto::STRING);
        name->set_s(n->name);
        if (!n->paramJson.empty() && n->paramJson != "{}") {
            auto *param = node->add_attribute();
            param->set_name("param");
            param->set_type(onnx::AttributeProto::STRING);
            param->set_s(n->paramJson);
        }
        last = out;
    }
    if (!last.empty()) {
        onnx::ValueInfoProto *v = g->add_output();
        v->set_name(last);
        setFloatType(v);
    }
    fs::create_directories(fs::path(path).parent_path());
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f || !model.SerializeToOstream(&f) || !f.flush())
            throw Error("cannot write '" + path + "' (is the disk full?)");
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec)
        throw Error("cannot write '" + path + "': " + ec.message());
}

std::vector<std::string> exportDumpOnnx(const std::string &root, std::vector<std::string> *problems)
{
    std::vector<std::string> written;
    for (const char *kind : {"model", "layer"}) {
        std::error_code ec;
        for (auto pid = fs::directory_iterator(fs::path(root) / kind, ec); !ec && pid != fs::directory_iterator();
             pid.increment(ec)) {
            std::error_code e2;
            for (auto f = fs::directory_iterator(pid->path(), e2); !e2 && f != fs::directory_iterator();
                 f.increment(e2)) {
                if (f->path().extension() != ".json")
                    continue;
                try {
                    const TopoNode t = readTopologyFile(f->path().string());
                    const std::string out = (fs::path(root) / "onnx" / pid->path().filename() /
                                             (sanitizeName(f->path().stem().string()) + ".onnx"))
                                                .string();
                    writeOnnx(t, out);
                    written.push_back(out);
                } catch (const Error &e) {
                    if (problems)
                        problems->push_back(f->path().string() + ": " + e.what());
                }
            }
        }
    }
    return written;
}

std::optional<std::vector<std::string>> exportOnnxAfterRun(const std::vector<std::string> &types,
                                                           const std::string &dumpRoot,
                                                           std::vector<std::string> *problems)
{
    if (std::find(types.begin(), types.end(), "onnx") == types.end())
        return std::nullopt;
    return exportDumpOnnx(dumpRoot, problems);
}

} // namespace llmscope

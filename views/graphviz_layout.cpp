#include "views/graphviz_layout.h"

#include <graphviz/gvc.h>

#include <QCoreApplication>

#include <cmath>
#include <string>

namespace {
// agset and friends take char * for what they only read.
char *cs(const char *s)
{
    return const_cast<char *>(s);
}

QPointF pt(const pointf &p, double top)
{
    return {p.x, top - p.y}; // Graphviz's y grows upwards
}

QPolygonF arrowHead(QPointF from, QPointF tip)
{
    const QPointF d = tip - from;
    const double len = std::max(1e-6, std::hypot(d.x(), d.y()));
    const QPointF u = d / len, n(-u.y(), u.x());
    return QPolygonF({tip, tip - u * 7 + n * 3.5, tip - u * 7 - n * 3.5});
}
} // namespace

GraphLayout layoutGraph(const llmscope::LayerGraph &g, const std::vector<QSizeF> &sizes)
{
    GraphLayout out;
    // One context for the process: each new one reads Graphviz's plugin configuration again
    // (and Graphviz never frees that buffer). Layouts run on the GUI thread only.
    static GVC_t *const context = gvContext();
    GVC_t *const gvc = context;
    if (!gvc) {
        out.error = QCoreApplication::translate("LayerGraphView", "Graphviz could not start");
        return out;
    }
    Agraph_t *graph = agopen(cs("layer"), Agdirected, nullptr);
    agattr(graph, AGRAPH, cs("rankdir"), cs("TB"));
    agattr(graph, AGRAPH, cs("nodesep"), cs("0.12"));
    agattr(graph, AGRAPH, cs("ranksep"), cs("0.22"));
    agattr(graph, AGNODE, cs("shape"), cs("box"));
    agattr(graph, AGNODE, cs("fixedsize"), cs("true"));
    agattr(graph, AGNODE, cs("label"), cs(""));
    agattr(graph, AGNODE, cs("width"), cs("1"));
    agattr(graph, AGNODE, cs("height"), cs("0.5"));
    agattr(graph, AGEDGE, cs("arrowsize"), cs("0.5"));
    std::vector<Agnode_t *> nodes;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Agnode_t *n = agnode(graph, cs(("n" + std::to_string(i)).c_str()), 1);
        const QSizeF s = i < sizes.size() ? sizes[i] : QSizeF(72, 36);
        agset(n, cs("width"), cs(std::to_string(s.width() / 72.0).c_str()));
        agset(n, cs("height"), cs(std::to_string(s.height() / 72.0).c_str()));
        nodes.push_back(n);
    }
    std::vector<Agedge_t *> edges;
    for (size_t i = 0; i < g.edges.size(); ++i)
        edges.push_back(agedge(graph, nodes[size_t(g.edges[i].first)], nodes[size_t(g.edges[i].second)],
                               cs(("e" + std::to_string(i)).c_str()), 1));
    if (gvLayout(gvc, graph, "dot") != 0) {
        out.error = QCoreApplication::translate("LayerGraphView",
                                                "Graphviz's dot layout is not available (is the "
                                                "libgvc6 plugin configuration installed?)");
        agclose(graph);
        return out;
    }
    const boxf bb = GD_bb(graph);
    const double top = bb.UR.y;
    out.bounds = QRectF(QPointF(bb.LL.x, 0), QPointF(bb.UR.x, bb.UR.y - bb.LL.y));
    for (Agnode_t *n : nodes) {
        const QPointF c = pt(ND_coord(n), top);
        const double w = ND_width(n) * 72, h = ND_height(n) * 72;
        out.nodes.push_back(QRectF(c.x() - w / 2, c.y() - h / 2, w, h));
    }
    for (Agedge_t *e : edges) {
        QPainterPath path;
        QPolygonF arrow;
        const splines *spl = e ? ED_spl(e) : nullptr;
        if (spl && spl->size > 0) {
            const bezier &b = spl->list[0];
            if (b.size > 0) {
                path.moveTo(pt(b.list[0], top));
                for (int i = 1; i + 2 < b.size; i += 3)
                    path.cubicTo(pt(b.list[i], top), pt(b.list[i + 1], top), pt(b.list[i + 2], top));
                if (b.eflag)
                    arrow = arrowHead(pt(b.list[b.size - 1], top), pt(b.ep, top));
            }
        }
        out.edges.push_back(path);
        out.arrows.push_back(arrow);
    }
    gvFreeLayout(gvc, graph);
    agclose(graph);
    return out;
}

// Lays out a layer graph with Graphviz's dot (Debian's libgraphviz), top to bottom: node
// boxes and edge splines in scene coordinates (points, y down). Qt types out, Graphviz stays
// inside this file.
#pragma once
#include <QPainterPath>
#include <QPolygonF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <vector>

#include "core/graph/layer_graph.h"

struct GraphLayout {
    std::vector<QRectF> nodes; // per node of the graph, in its order
    std::vector<QPainterPath> edges; // per edge
    std::vector<QPolygonF> arrows; // per edge: its arrowhead (may be empty)
    QRectF bounds;
    QString error; // set when Graphviz could not lay it out
};

// sizes: each node's box in points.
GraphLayout layoutGraph(const llmscope::LayerGraph &g, const std::vector<QSizeF> &sizes);

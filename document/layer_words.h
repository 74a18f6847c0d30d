// llama.cpp's layer of a graph node, in the window's language: its nodes are named "name-N"
// (ffn_out-2) and its weights blk.N.*, while an op id counts groups (op 3_29 is in layer 2).
// "layer 2 (blk.2)" for "ffn_out-2" or "Kcur-2 (view)"; empty for a node of no layer.
#pragma once
#include <QString>

#include <string>

QString layerWords(const std::string &nodeName);

// A layer group's name with llama.cpp's count beside it: op ids count groups from the embedding
// (op 3_29 is in "Layer2"), llama.cpp's nodes and weights from the first layer (blk.2). Said
// together wherever a layer is named: "Layer2 (blk.2)"; any other name as it is.
QString layerLabel(const QString &groupName);
// llama.cpp's layer number of a "LayerN" group, or -1
int llamaLayerOf(const QString &groupName);

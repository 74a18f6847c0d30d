// A layer group's name with llama.cpp's count beside it: op ids count groups from the embedding
// (op 3_29 is in "Layer2"), llama.cpp's nodes and weights from the first layer (blk.2). Said
// together wherever a layer is named: "Layer2 (blk.2)"; any other name as it is.
#pragma once
#include <QString>

QString layerLabel(const QString &name);
// llama.cpp's layer number of a "LayerN" group, or -1
int llamaLayerOf(const QString &name);

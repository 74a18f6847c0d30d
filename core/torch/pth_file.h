// Tensors saved by torch.save (.pth, .pt): a zip archive holding data.pkl, the pickle that
// rebuilds the tensor (read by restricted_pickle.h, which runs nothing), and its storages
// under data/. msit's PyTorch dump and msProbe's dump_tensor_data write these.
#pragma once
#include <string>

#include "core/tensor/tensor.h"

namespace llmscope {

// Whether path names a torch.save file (.pth or .pt).
bool isTorchFile(const std::string &path);

// The tensor in a torch.save file, as a dense little-endian Tensor in torch's dim order (a
// view's elements gathered by its strides). Throws Error saying why when the file is not a
// zip archive of one tensor, asks for anything a saved tensor does not use, is big-endian, or
// its storage is shorter than the tensor's elements need.
// withData false: the dtype and dims alone, from the pickle (the storage is not read).
Tensor readPth(const std::string &path, bool withData = true);

} // namespace llmscope

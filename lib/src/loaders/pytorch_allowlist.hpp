// loaders/pytorch_allowlist.hpp — the globals torch.load(weights_only=True) accepts
// (torch/_weights_only_unpickler.py, _get_allowed_globals). Any other global a checkpoint
// names (os.system, builtins.eval, a whole nn.Module's class) is one that a plain
// torch.load would import, and possibly call: the loader reports it as a warning.
//
//   torch_allows_global("torch._utils._rebuild_tensor_v2");   // true
//   torch_allows_global("os.system");                         // false
#pragma once

#include <string_view>

namespace tensor_inspect {

/// True when `name` ("module.qualname") is on PyTorch's default weights_only allow-list:
/// collections.OrderedDict and Counter, torch.nn.parameter.Parameter, torch.Size,
/// torch.Tensor, torch.device, torch.serialization._get_layout, _codecs.encode,
/// builtins.bytearray/set/complex, torch dtypes, tensor and storage classes, quantization
/// schemes, and the torch._utils._rebuild_* functions.
bool torch_allows_global(std::string_view name);

}  // namespace tensor_inspect

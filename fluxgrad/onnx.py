"""`fluxgrad.onnx`: ONNX export is not available; `export` says what to do instead."""

__all__ = ["export"]


def export(model, args=None, f=None, *unused, **kwargs):
    """Refuse, naming the alternative: move the weights into the same model in PyTorch."""
    raise NotImplementedError(
        "fluxgrad can't export ONNX. Export through PyTorch instead: build the same "
        "architecture as a torch.nn.Module, load fluxgrad's weights with "
        "torch_model.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in "
        "model.state_dict().items()}), then call torch.onnx.export(torch_model, ...).")

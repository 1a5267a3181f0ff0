"""Seeded tiny transformers folders (real `save_pretrained` output) of any family, every weight moved off its init."""


def save_seeded_pretrained(folder, config_class, architecture, seed, **config):
    """Writes a seeded `transformers.<architecture>` of `transformers.<config_class>(**config)` to `folder`; every
    weight is moved off its init (LayerNorm gains off 1, biases off 0) so each one shows in the outputs."""
    import torch
    import transformers

    torch.manual_seed(seed)
    model = getattr(transformers, architecture)(getattr(transformers, config_class)(**config)).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.05)
    model.save_pretrained(folder)
    return folder

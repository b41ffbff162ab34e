"""`python -m fluxgrad`: a small expression, its values, its graph and its gradients."""
import fluxgrad as fg


def main():
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = fg.tensor([4.0, 5.0, 6.0], requires_grad=True)
    z = x ** 2 + 4 * y
    loss = z.sum()
    print("x        =", x)
    print("y        =", y)
    print("z        =", z)
    print("z.grad_fn =", z.grad_fn, "<- inputs", [f[0] for f in z.grad_fn.next_functions])
    loss.backward()
    print("dloss/dx =", x.grad, "(2x)")
    print("dloss/dy =", y.grad, "(4)")

    t = fg.tensor(1.0, requires_grad=True)
    d = fg.tanh(t)
    derivatives = []
    for _ in range(3):
        d, = fg.grad(d, t, create_graph=True)
        derivatives.append(round(d.item(), 8))
    print("first three derivatives of tanh at 1.0:", derivatives)


if __name__ == "__main__":
    main()

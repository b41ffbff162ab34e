"""Seed 002 (PaddlePaddle's incubate.autograd guide): every code block as written, with
`paddle` replaced by `fluxgrad`, each example in a fresh interpreter (its own default
programs and scope). The five blocks of the recommended usage form one script.
"""
import os
import pathlib
import subprocess
import sys

import pytest

import fluxgrad

ROOT = pathlib.Path(fluxgrad.__file__).resolve().parent.parent

SCRIPTS = {}

SCRIPTS['recommended_usage_mynet'] = """\
import numpy as np
import fluxgrad

fluxgrad.enable_static()
fluxgrad.incubate.autograd.enable_prim()

class MyNet(fluxgrad.nn.Layer):
    def __init__(self):
        super().__init__()
        self.weight = self.create_parameter(shape=(2,2), dtype='float32', is_bias=False)
        self.bias = self.create_parameter(shape=(2,2), dtype='float32', is_bias=True)
        self.add_parameter("weight", self.weight)
        self.add_parameter("bias", self.bias)

    def forward(self, x):
        y = fluxgrad.matmul(x, self.weight) + self.bias
        return fluxgrad.tanh(y)

x = fluxgrad.static.data('x', shape=(2,2), dtype='float32')
net = MyNet()
y = net(x)

grad1 = fluxgrad.incubate.autograd.grad(y, x)
grad2 = fluxgrad.incubate.autograd.grad(grad1, x)
loss = fluxgrad.norm(grad2, p=2)

opt = fluxgrad.optimizer.Adam(0.01)
opt.minimize(loss)

# 创建执行器
exe = fluxgrad.static.Executor()
# 执行一次默认 startup program，初始化网络参数
exe.run(fluxgrad.static.default_startup_program())

# 模拟形状固定的长度为 10 的输入数据
data = [np.random.rand(2,2).astype(np.float32) for i in range(10)]
# feed 网络输入数据，fetch_list 中指定想要 fetch 的结果，迭代执行网络进行训练
for i, x in enumerate(data):
    loss_val, = exe.run(feed={'x': x}, fetch_list=[loss])
    print("iter: ", i+1, " loss: ", loss_val)
"""

SCRIPTS['tanh_third_order'] = """\
import fluxgrad
import numpy as np

fluxgrad.enable_static() # 开启静态图
fluxgrad.incubate.autograd.enable_prim() # 开启自动微分

# 组网代码
x = fluxgrad.static.data('x', shape=((1, )), dtype=fluxgrad.float32)
y = fluxgrad.tanh(x)
grad1 = fluxgrad.incubate.autograd.grad(y, x)     # 一阶微分
grad2 = fluxgrad.incubate.autograd.grad(grad1, x) # 二阶微分
grad3 = fluxgrad.incubate.autograd.grad(grad2, x) # 三阶微分

feed = {'x': np.ones((1,)).astype(np.float32)}
fetch_list = [grad1, grad2, grad3]
exe = fluxgrad.static.Executor()
grad1, grad2, grad3 = exe.run(feed=feed, fetch_list=fetch_list)

print(grad1, grad2, grad3)
# [0.41997433] [-0.6397] [0.6216267]
"""

SCRIPTS['forward_grad'] = """\
import fluxgrad
import numpy as np

fluxgrad.enable_static() # 开启静态图
fluxgrad.incubate.autograd.enable_prim() # 开启自动微分

# 组网代码
def func(x): # 单输入多输出函数
    return x+x, x*x, fluxgrad.tanh(x)

x = fluxgrad.static.data('x', shape=((1, )), dtype=fluxgrad.float32)
y = func(x)
# 前向微分遍历一次计算图可以计算所有输出对一个输入的导数
out = fluxgrad.incubate.autograd.forward_grad(y, x)

exe = fluxgrad.static.Executor()
out = exe.run(feed={'x': np.random.rand(1).astype(np.float32)}, fetch_list=[out])
print(out)
"""

SCRIPTS['batched_lazy_jacobian'] = """\
import fluxgrad
import numpy as np

fluxgrad.enable_static() # 开启静态图
fluxgrad.incubate.autograd.enable_prim() # 开启自动微分

# 组网代码
x = fluxgrad.static.data('x', shape=((2,8)), dtype=fluxgrad.float32)
y = fluxgrad.static.data('y', shape=((2,8)), dtype=fluxgrad.float32)
# 创建 Jaocbian 实例，此时并不发生计算，支持 batch
J = fluxgrad.incubate.autograd.Jacobian(fluxgrad.multiply, (x,y), is_batched=True)
# 惰性计算，有效提升计算速度，减少显存开销
row = J[:, 0, :] # 获取第一行数据，并缓存
col = J[:, 0:3, :] # 获取前三行，第一行结果上次计算中已经缓存
all = J[:] # 获取所有元素，前三行数据已经缓存


feed = {
'x': np.random.randn(2,8).astype(np.float32),
'y': np.random.randn(2,8).astype(np.float32)
}
fetch_list = [row, col, all]
exe = fluxgrad.static.Executor()
row, col, all = exe.run(feed=feed, fetch_list=fetch_list)
"""

SCRIPTS['appendix_three_shapes'] = """\
import numpy as np
import fluxgrad


fluxgrad.enable_static()
fluxgrad.incubate.autograd.enable_prim()

class MyNet(fluxgrad.nn.Layer):
    def __init__(self):
        super().__init__()
        self.weight = self.create_parameter(shape=(2,2), dtype='float32', is_bias=False)
        self.bias = self.create_parameter(shape=(2,), dtype='float32', is_bias=True)
        self.add_parameter("weight", self.weight)
        self.add_parameter("bias", self.bias)

    def forward(self, x):
        y = fluxgrad.matmul(x, self.weight) + self.bias
        return fluxgrad.tanh(y)

# 模拟一个形状变化输入数据
data = [
    np.random.rand(3,2).astype(np.float32),
    np.random.rand(4,2).astype(np.float32),
    np.random.rand(5,2).astype(np.float32)
]

# 遍历输入数据，将形状作为 fluxgrad.static.data 参数传入，此时形状是固定的
for i, input in enumerate(data):
    x = fluxgrad.static.data(f'x{i}', shape=input.shape, dtype='float32')
    net = MyNet()
    y = net(x)

    grad1 = fluxgrad.incubate.autograd.grad(y, x)
    grad2 = fluxgrad.incubate.autograd.grad(grad1, x)
    loss = fluxgrad.norm(grad2, p=2)

    opt = fluxgrad.optimizer.Adam(0.01)
    opt.minimize(loss)

exe = fluxgrad.static.Executor()
exe.run(fluxgrad.static.default_startup_program())

for epoch in range(10):
    loss_val, = exe.run(feed={f'x{i}': x for i, x in enumerate(data)}, fetch_list=[loss])
    print("epoch: ", epoch+1, " loss: ", loss_val)
"""


def run(name):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    result = subprocess.run([sys.executable, "-c", SCRIPTS[name]], capture_output=True,
                            text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_tanh_third_order_prints_the_seeds_numbers():
    assert run("tanh_third_order").strip() == "[0.41997433] [-0.6397] [0.6216267]"


def test_forward_grad_of_three_outputs():
    out = run("forward_grad")
    assert out.count("array(") == 3 and "array([2.], dtype=float32)" in out


@pytest.mark.parametrize("name", ["recommended_usage_mynet", "appendix_three_shapes"])
def test_training_examples_print_ten_finite_losses(name):
    lines = [line for line in run(name).splitlines() if "loss:" in line]
    assert len(lines) == 10
    losses = [float(line.split("loss:")[1].strip().strip("[]")) for line in lines]
    assert all(0 < v < 100 for v in losses)


def test_batched_lazy_jacobian_runs():
    run("batched_lazy_jacobian")

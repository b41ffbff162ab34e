"""Cellular automata with tensor ops, as in the many "Game of Life in PyTorch" posts: neighbour
counts by F.conv2d with a 3x3 ones kernel (centre zero) on float boards and by eight torch.roll
shifts on a torus, the birth/survival rule with bool logic (& | ==), a glider's period-4
translation checked with torch.equal, an oscillator, population counts, elementary automaton
rule 110 with integer bit tricks (powers of two, >> and & 1), and unique board states hashed by
rows."""
import fluxgrad as torch
import fluxgrad.nn.functional as F

kernel = torch.ones(1, 1, 3, 3)
kernel[0, 0, 1, 1] = 0


def step_conv(board):
    neighbours = F.conv2d(board.float()[None, None], kernel, padding=1)[0, 0]
    alive = board.bool()
    return ((neighbours == 3) | (alive & (neighbours == 2))).to(torch.uint8)


def step_roll(board):
    n = sum(torch.roll(board, (dy, dx), dims=(0, 1)) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
    return ((n == 3) | ((board == 1) & (n == 2))).to(board.dtype)


board = torch.zeros(10, 10, dtype=torch.uint8)
board[1, 2] = board[2, 3] = board[3, 1] = board[3, 2] = board[3, 3] = 1
b = board.clone()
for gen in range(4):
    b = step_conv(b)
    print(gen, b.sum().item(), b.nonzero()[0].tolist())
print(torch.equal(b, torch.roll(board, (1, 1), dims=(0, 1))), b.dtype)

torus = board.clone().to(torch.int64)
for gen in range(40):
    torus = step_roll(torus)
print(torus.sum().item(), torus.nonzero().tolist(), torch.equal(torus, torch.roll(board.to(torch.int64), (10, 10), dims=(0, 1))))

blinker = torch.zeros(5, 5, dtype=torch.uint8)
blinker[2, 1:4] = 1
print(step_conv(blinker), torch.equal(step_conv(step_conv(blinker)), blinker))

rule = 110
rule_bits = (rule >> torch.arange(8)) & 1
cells = torch.zeros(31, dtype=torch.int64)
cells[-1] = 1
history = [cells]
for _ in range(15):
    left, right = torch.roll(cells, 1), torch.roll(cells, -1)
    index = (left << 2) | (cells << 1) | right
    cells = rule_bits[index]
    history.append(cells)
history = torch.stack(history)
print(rule_bits, history.sum(1), "".join("#" if c else "." for c in history[-1].tolist()))
weights = 2 ** torch.arange(30, -1, -1)
codes = (history * weights).sum(1)
print(codes[:4], torch.unique(codes).numel(), history.dtype)

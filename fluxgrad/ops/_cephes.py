"""NumPy kernels of the Bessel functions J0, J1, Y0, Y1 and the Airy function Ai (with Ai'):
the Cephes library's rational approximations and branch points, evaluated in float64, equal to
scipy.special's to rounding. The coefficient tables are those of PyTorch's
aten/src/ATen/native/Math.h; PyTorch 2.13 evaluates the denominators Cephes writes as p1evl
(an implicit leading 1) as plain polynomials, one degree short, so its values are off by up
to 9e-7 (J, Y) and 3e-6 (Ai, for -10 < x < -2.09); these kernels keep Cephes's degrees.

Ai' (which torch lacks) is the exact derivative of the same approximations: the power series
differentiated term by term for -2.09 <= x < 2.09, and the asymptotic forms' rational
functions differentiated analytically outside, so that Ai and Ai' agree to rounding.
Coefficients are highest degree first (Horner's order).
"""
import math

import numpy as np

AI_AN = (3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01,
    1.68089224934630576269e+02, 1.59756391350164413639e+02, 7.05360906840444183113e+01,
    1.40264691163389668864e+01, 9.99999999999999995305e-01)
AI_AD = (5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01,
    1.77318088145400459522e+02, 1.64234692871529701831e+02, 7.14778400825575695274e+01,
    1.40959135607834029598e+01, 1.00000000000000000470e+00)
AI_AFN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
    -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
    -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08)
AI_AFD = (1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
    9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
    4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07)
AI_AGN = (1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
    9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
    5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
    8.11789239554389293311e-08, 3.41551784765923618484e-10)
AI_AGD = (9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
    5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
    4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
    4.91834570062930015649e-09)
J0_PP = (7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00,
    5.44725003058768775090e+00, 8.74716500199817011941e+00, 5.30324038235394892183e+00,
    9.99999999999999997821e-01)
J0_PQ = (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00,
    5.47097740330417105182e+00, 8.76190883237069594232e+00, 5.30605288235394617618e+00,
    1.00000000000000000218e+00)
J0_QP = (-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
    -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
    -5.14105326766599330220e+01, -6.05014350600728481186e+00)
J0_QQ = (6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03,
    7.24046774195652478189e+03, 5.93072701187316984827e+03, 2.06209331660327847417e+03,
    2.42005740240291393179e+02)
J0_RP = (-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14,
    9.70862251047306323952e+15)
J0_RQ = (4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07,
    1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14,
    3.18121955943204943306e+16, 1.71086294081043136091e+18)
J1_PP = (7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00,
    5.11207951146807644818e+00, 8.42404590141772420927e+00, 5.21451598682361504063e+00,
    1.00000000000000000254e+00)
J1_PQ = (5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00,
    5.07386386128601488557e+00, 8.39985554327604159757e+00, 5.20982848682361821619e+00,
    9.99999999999999997461e-01)
J1_QP = (5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01,
    3.66779609360150777800e+02, 7.10856304998926107277e+02, 5.97489612400613639965e+02,
    2.11688757100572135698e+02, 2.52070205858023719784e+01)
J1_QQ = (7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03,
    9.56231892404756170795e+03, 7.99704160447350683650e+03, 2.82619278517639096600e+03,
    3.36093607810698293419e+02)
J1_RP = (-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13,
    3.68295732863852883286e+15)
J1_RQ = (6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07,
    2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14,
    8.95222336184627338078e+16, 5.32278620332680085395e+18)
Y0_YP = (1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09,
    -9.82136065717911466409e+11, 8.75906394395366999549e+13, -3.46628303384729719441e+15,
    4.42733268572569800351e+16, -1.84950800436986690637e+16)
Y0_YQ = (1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08,
    8.64002487103935000337e+10, 2.02979612750105546709e+13, 3.17157752842975028269e+15,
    2.50596256172653059228e+17)
Y1_YP = (1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14,
    -8.12770255501325109621e+15, 2.02439475713594898196e+17, -7.78877196265950026825e+17)
Y1_YQ = (5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07,
    1.87601316108706159478e+10, 3.88231277496238566008e+12, 6.20557727146953693363e+14,
    6.87141087355300489866e+16, 3.97270608116560655612e+18)

_PIO4 = math.pi / 4
_3PIO4 = 3 * math.pi / 4
_SQ2OPI = math.sqrt(2 / math.pi)
_TWOOPI = 2 / math.pi
_SQPII = 1 / math.sqrt(math.pi)
_AI_C1 = 0.355028053887817239260  # Ai(0)
_AI_C2 = 0.258819403792806798405  # -Ai'(0)
_EPS = np.finfo(np.float64).eps


def _polevl(x, coefficients):
    out = np.zeros_like(x)
    for c in coefficients:
        out = out * x + c
    return out


def _p1evl(x, coefficients):
    """Cephes's p1evl: the polynomial with an implicit leading coefficient 1."""
    return _polevl(x, (1.0,) + tuple(coefficients))


def _polevl_and_derivative(x, coefficients):
    value, slope = np.zeros_like(x), np.zeros_like(x)
    for c in coefficients:
        slope = slope * x + value
        value = value * x + c
    return value, slope


def _as_float64(x):
    return np.asarray(x, np.float64)


def _asymptotic(x, p_coefficients, q_coefficients, shift, *, sine):
    """The large-x form of J (sine=False) or Y (sine=True) of order 0 or 1."""
    pp, pq, qp, qq = p_coefficients + q_coefficients
    w = (5.0 / x) * (5.0 / x) if shift == _3PIO4 else 25.0 / (x * x)
    p = _polevl(w, pp) / _polevl(w, pq)
    q = _polevl(w, qp) / _p1evl(w, qq)
    xn = x - shift
    if sine:
        return (p * np.sin(xn) + 5.0 / x * q * np.cos(xn)) * _SQ2OPI / np.sqrt(x)
    return (p * np.cos(xn) - 5.0 / x * q * np.sin(xn)) * _SQ2OPI / np.sqrt(x)


def j0(x):
    x = np.abs(_as_float64(x))
    with np.errstate(all="ignore"):
        small = x <= 5.0
        z = x * x
        near = (z - 5.78318596294678452118e+00) * (z - 3.04712623436620863991e+01) * \
            _polevl(z, J0_RP) / _p1evl(z, J0_RQ)
        near = np.where(x < 1e-5, 1.0 - z / 4.0, near)
        far = _asymptotic(np.where(small, 5.0, x), (J0_PP, J0_PQ), (J0_QP, J0_QQ), _PIO4,
                          sine=False)
        return np.where(small, near, far)


def j1(x):
    x = _as_float64(x)
    sign = np.where(x < 0, -1.0, 1.0)
    x = np.abs(x)
    with np.errstate(all="ignore"):
        small = x <= 5.0
        z = x * x
        near = _polevl(z, J1_RP) / _p1evl(z, J1_RQ) * x * (z - 1.46819706421238932572e+01) * \
            (z - 4.92184563216946036703e+01)
        far = _asymptotic(np.where(small, 5.0, x), (J1_PP, J1_PQ), (J1_QP, J1_QQ), _3PIO4,
                          sine=False)
        return sign * np.where(small, near, far)


def y0(x):
    x = _as_float64(x)
    with np.errstate(all="ignore"):
        small = x <= 5.0
        z = x * x
        near = _polevl(z, Y0_YP) / _p1evl(z, Y0_YQ) + _TWOOPI * np.log(x) * j0(x)
        near = np.where(x == 0, -np.inf, np.where(x < 0, np.nan, near))
        far = _asymptotic(np.where(small, 5.0, x), (J0_PP, J0_PQ), (J0_QP, J0_QQ), _PIO4,
                          sine=True)
        return np.where(small, near, far)


def y1(x):
    x = _as_float64(x)
    with np.errstate(all="ignore"):
        small = x <= 5.0
        z = x * x
        near = x * (_polevl(z, Y1_YP) / _p1evl(z, Y1_YQ)) + \
            _TWOOPI * (j1(x) * np.log(x) - 1.0 / x)
        near = np.where(x == 0, -np.inf, np.where(x < 0, np.nan, near))
        far = _asymptotic(np.where(small, 5.0, x), (J1_PP, J1_PQ), (J1_QP, J1_QQ), _3PIO4,
                          sine=True)
        return np.where(small, near, far)


def _airy_series(x):
    """Ai and Ai' by their Maclaurin series, Ai = c1 f - c2 g (f, g the even and odd
    solutions), summed until the terms fall below rounding."""
    z = x * x * x
    f, g = np.ones_like(x), x.copy()
    fp, gp = x * x / 2, np.ones_like(x)
    m, n, mp, np_ = np.ones_like(x), x.copy(), fp.copy(), np.ones_like(x)
    for k in range(1, 60):
        m = m * z / ((3 * k - 1) * (3 * k))
        n = n * z / ((3 * k) * (3 * k + 1))
        f, g = f + m, g + n
        mp = mp * z / ((3 * k) * (3 * k + 2))
        np_ = np_ * z / ((3 * k - 2) * (3 * k))
        fp, gp = fp + mp, gp + np_
        if not np.any(np.abs(m) > _EPS * np.abs(f)) and not np.any(np.abs(mp) > _EPS * np.abs(fp)):
            break
    return _AI_C1 * f - _AI_C2 * g, _AI_C1 * fp - _AI_C2 * gp


def _airy_negative(x):
    """Ai and Ai' for x < -2.09: the oscillating asymptotic form and its exact derivative."""
    s = -x
    root = np.sqrt(s)
    zeta = 2.0 * s * root / 3.0
    z = 1.0 / zeta
    zz = z * z
    afn, afn_ = _polevl_and_derivative(zz, AI_AFN)
    afd, afd_ = _polevl_and_derivative(zz, (1.0,) + AI_AFD)
    agn, agn_ = _polevl_and_derivative(zz, AI_AGN)
    agd, agd_ = _polevl_and_derivative(zz, (1.0,) + AI_AGD)
    big_f = 1.0 + zz * afn / afd
    big_g = agn / agd
    big_f_ = afn / afd + zz * (afn_ * afd - afn * afd_) / (afd * afd)
    big_g_ = (agn_ * agd - agn * agd_) / (agd * agd)
    t = zeta + _PIO4
    scale = 5.64189583547756286948e-01 / np.sqrt(root)
    body = np.sin(t) * big_f - np.cos(t) * (z * big_g)
    # d/dx: t' = -root, z' = root z^2, (z^2)' = 2 root z^3, (s^-1/4)' = s^-1/4 / (4 s)
    dt, dz, dzz = -root, root * zz, 2.0 * root * zz * z
    dbody = (np.cos(t) * dt * big_f + np.sin(t) * big_f_ * dzz + np.sin(t) * dt * z * big_g
             - np.cos(t) * (dz * big_g + z * big_g_ * dzz))
    return scale * body, scale * (body / (4.0 * s) + dbody)


def _airy_positive(x):
    """Ai and Ai' for x >= 2.09: the decaying asymptotic form and its exact derivative."""
    root = np.sqrt(x)
    zeta = 2.0 * x * root / 3.0
    w = 1.0 / zeta
    an, an_ = _polevl_and_derivative(w, AI_AN)
    ad, ad_ = _polevl_and_derivative(w, AI_AD)
    decay = 1.0 / (2.0 * np.sqrt(root) * np.exp(zeta))
    ai = _SQPII * (an / ad) * decay
    ratio_ = (an_ * ad - an * ad_) / (ad * ad)
    # d/dx: zeta' = root, w' = -root w^2, (x^-1/4 e^-zeta)' = -(1/(4x) + root) x^-1/4 e^-zeta
    aip = ai * -(1.0 / (4.0 * x) + root) + _SQPII * decay * ratio_ * (-root * w * w)
    return ai, aip


def airy(x):
    """(Ai(x), Ai'(x)) in float64: NaN at +-inf (as torch's Ai), 0 beyond x = 103.892."""
    x = _as_float64(x)
    with np.errstate(all="ignore"):
        neg = x < -2.09
        pos = x >= 2.09
        series = _airy_series(np.where(neg | pos, 0.0, x))
        negative = _airy_negative(np.where(neg, x, -3.0))
        positive = _airy_positive(np.where(pos, x, 3.0))
        outs = []
        for a, b, c in zip(series, negative, positive):
            out = np.where(neg, b, np.where(pos, c, a))
            out = np.where(x > 103.892, 0.0, out)
            outs.append(np.where(np.isinf(x), np.nan, out))
        return outs[0], outs[1]

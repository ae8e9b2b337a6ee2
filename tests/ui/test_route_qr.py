"""The route page's QR code (components/route/qr.py) is the core's picture, module for module: the mask it picks with
numpy is the one segno's own search picks, on links of every length the page shows (a few characters up to a
30-stop route's app link, QR versions 1 to 33)."""

from __future__ import annotations

import random
import string

import pytest
import segno

from components.route.qr import qr_svg_data_uri
from core.config import get_settings
from core.route.links import qr_svg_data_uri as core_qr_svg_data_uri

pytestmark = pytest.mark.ui

ALPHABET = string.ascii_letters + string.digits + ",.&=%-_;:|"


def links() -> list[str]:
    chosen = random.Random(23)
    return [
        "https://uri.amap.com/navigation?" + "".join(chosen.choice(ALPHABET) for _ in range(n))
        for n in (1, 9, 25, 40, 60, 80, 101, 125, 150, 190, 230, 300, 420, 510, 600, 690, 777, 890, 1003, 1350, 1580)
    ]


@pytest.mark.parametrize("link", links(), ids=lambda link: f"{len(link)}-chars")
def test_the_qr_code_is_the_cores_picture(link):
    assert qr_svg_data_uri(link, scale=5) == core_qr_svg_data_uri(link, scale=5)


def test_the_links_cover_every_mask_segno_picks():
    """The links above are not all drawn with one mask: the comparison checks the mask search, not one default."""
    masks = {segno.make(link, error="m", micro=False).mask for link in links()}
    assert len(masks) >= 4, masks


def test_a_planned_routes_app_link_gets_the_cores_picture():
    from components.route.links_panel import qr_choices
    from core.geo.registry import make_provider
    from core.route.planner import plan_route
    from core.route.scenarios import load_scenario

    result = plan_route(
        load_scenario("delivery-round").request,
        provider=make_provider("offline", region="shanghai", settings=get_settings()),
        settings=get_settings(),
    )
    choices = qr_choices(result, lang="en")
    assert choices, "the delivery round has app links"
    for _, url in choices:
        assert qr_svg_data_uri(url, scale=5) == core_qr_svg_data_uri(url, scale=5)


@pytest.mark.parametrize("length", [60, 777, 1580])
def test_each_masks_penalty_is_segnos(length):
    """N1–N4 summed for every mask, against segno's own scoring of the same masked matrix."""
    from segno import encoder

    from components.route.qr import mask_penalties, unmasked

    link = next(link for link in links() if len(link) == len("https://uri.amap.com/navigation?") + length)
    data, fixed = unmasked(segno.make(link, error="m", micro=False, mask=0))
    size = len(data)
    masks = encoder.get_data_mask_functions(False)
    expected = []
    for mask in masks:
        matrix = tuple(bytearray(int(v) for v in row) for row in data)
        encoder.apply_mask(matrix, mask, size, size, lambda i, j: fixed[i][j] == 2)
        expected.append(encoder.evaluate_mask(matrix, size, size))
    assert mask_penalties(data, fixed) == expected

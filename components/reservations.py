"""Reservations on the dashboard: one flow every page calls, thin over core.reservations' gates.

``reserve_controls`` asks for the date, the venue's slot, the party and a contact, makes the service's dry run on
"Check availability", words what would be reserved (price and its source, the cancellation policy, what the mock
cannot verify; free slots nearby when full), asks for consent, confirms in a dialog with the dry run's token under
one idempotency key per dry run (a double click or a rerun replays, it never books twice) and shows the receipt.
``my_reservations`` lists the dashboard user's reservations and cancels through the cancellation dry run.
``render_offers`` opens ``reserve_controls`` for the bookable stops of a page's result.

Everything lives in ``st.session_state`` under the caller's ``key_prefix`` and is rendered from there; the work
happens in widget callbacks. The core returns codes; the words are chosen here, in the dashboard's language
(components.language.current_lang, reservations.po), and venues are named in it where the pack has the name, the
other language in a tooltip. Codes and the core's messages stay in the collapsed "Details".
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any, TypedDict

import streamlit as st
from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError

from components import language
from components.identity import dashboard_user
from components.language import current_lang, t
from components.reservation_words import (
    booking_words,
    clock_words,
    error_of,
    fee_words,
    moved_words,
    policy_words,
    price_words,
    refusal_words,
    status_words,
    unverified_words,
    venue_clock,
)
from components.services import app_services, request_clock, settings
from core.app import reservations as reservations_app
from core.app.reservations import ReservationService, item_for
from core.errors import OmniError
from core.i18n import Lang
from core.models.reservations import BookableItem, DryRun, Outcome, Reservation, ReservationRequest

#: the session's language key (components/language.py)
LANG = language.LANG
#: the reserve_controls prefix whose confirmation dialog is open (one dialog per run)
DIALOG = "reservation_dialog"


def venue_names(item_id: str, stored: str = "") -> tuple[str, str]:
    """(shown, other): a venue's name in the page's language from its pack (the other language for a tooltip);
    the name stored with the booking when no pack has the place."""
    lang = current_lang()
    place = _service_of_item(item_id).pack.place_by_id(item_id)
    if place is None:
        return stored or item_id, ""
    shown = place.name_en if lang == "en" and place.name_en else place.name_zh
    other = place.name_zh if lang == "en" else place.name_en
    return shown, other if other and other != shown else ""


def _other_help(other: str) -> str | None:
    return t("reservations.other_name", name=other) if other else None


def _booking(r: Reservation) -> tuple[str, str | None]:
    """What is booked in words, with the venue's other name as a tooltip."""
    shown, other = venue_names(r.item_id, r.item_name)
    return booking_words(r, current_lang(), name=shown), _other_help(other)


def render_refusal(error: dict[str, Any], item: BookableItem | None = None) -> None:
    lang = current_lang()
    venue = venue_names(item.id, item.name)[0] if item is not None else ""
    st.warning(refusal_words(error, item, lang=lang, venue=venue), icon=":material/event_busy:")
    with st.expander(t("common.details", lang), expanded=False):
        st.caption(
            t("reservations.details.refusal", lang, code=error["code"], field=error.get("field") or "-",
              message=error.get("message", ""))
        )  # fmt: skip


# ---- the service -------------------------------------------------------------------------------------------------
def service_for(region: str | None = None) -> ReservationService:
    """The service of ``region`` (default: the region chosen in the sidebar), shared by the server's sessions, on
    the product's clock (``OMNI_NOW``'s moment in tests and demos)."""
    shared = app_services().reservations(region or st.session_state.get("region") or settings().region)
    return shared.at(request_clock())


def _service_of_item(item_id: str) -> ReservationService:
    """The service whose pack has ``item_id`` (a reservation made in another region than the sidebar's): core.app's
    one resolver; the sidebar's service when no pack offers the venue any more (its gates then answer)."""
    sidebar = st.session_state.get("region") or settings().region
    try:
        return app_services().reservations_for_item(item_id, prefer=sidebar).at(request_clock())
    except OmniError:
        return service_for()


# ---- default date and time ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Offer:
    """A bookable stop of a page's result: what to reserve and the form's defaults."""

    key: str  # unique on the page (widget keys)
    item_id: str
    label: str  # e.g. "Day 1 · 11:30 · **Yu Garden**" (worded by the page)
    default_date: date
    default_time: time
    moved_from: tuple[date, time] | None = None  # the plan's day and slot, when they can no longer be booked


def note_words(offer: Offer, lang: Lang) -> str:
    """Why the form's defaults differ from the plan ("" when they do not)."""
    return moved_words(*offer.moved_from, lang) if offer.moved_from is not None else ""


def offer_for(
    service: ReservationService, item_id: str, *, key: str, label: str, day: date | None = None, at: time | None = None
) -> Offer | None:
    """An offer for ``item_id`` when it is bookable: at the venue's slot after ``at`` on ``day`` while that can
    still be booked, else at the earliest slot that can."""
    item = item_for(service.pack, item_id)
    if item is None:
        return None
    if day is not None and at is not None:
        slot = item.next_slot(at)
        if service.bookable_at(item, day, slot):
            return Offer(key, item.id, label, day, slot)
        when, earliest = service.earliest_slot(item)
        return Offer(key, item.id, label, when, earliest, (day, slot))
    when, slot = service.earliest_slot(item)
    return Offer(key, item.id, label, when, slot)


# ---- reserve_controls --------------------------------------------------------------------------------------------
def _k(prefix: str, name: str) -> str:
    return f"{prefix}_{name}"


def _request_of(prefix: str, item_id: str) -> ReservationRequest:
    s = st.session_state
    return ReservationRequest(
        item_id=item_id,
        date=s[_k(prefix, "date")],
        time=s[_k(prefix, "time")],
        party_size=int(s[_k(prefix, "party")]),
        contact=s.get(_k(prefix, "contact")) or "",
        notes=s.get(_k(prefix, "notes")) or "",
    )


#: how a page makes a venue's dry run (user, request) → DryRun: the service's own by default; the half-day page's
#: goes through its planner's stage 7 (the registered mock_reserve tool, under the plan's trace id)
DryRunMaker = Callable[[str, ReservationRequest], DryRun]


class HeldDryRun(TypedDict):
    """A dry run kept in the session until it is confirmed: the key its confirmation goes with, and whether the
    person ticked their consent."""

    dry: DryRun
    idempotency_key: str
    consent: bool


def _check(prefix: str, item_id: str, region: str | None, user: str, make: DryRunMaker | None = None) -> None:
    """ "Check availability": the dry run, with a fresh idempotency key for its confirmation."""
    s = st.session_state
    for name in ("dry", "error", "receipt"):
        s.pop(_k(prefix, name), None)
    s[_k(prefix, "consent")] = False
    try:
        request = _request_of(prefix, item_id)
        dry = (make or service_for(region).dry_run)(user, request)
    except (ValidationError, OmniError, SQLAlchemyError) as exc:
        error = error_of(exc)
        asked = s.get(_k(prefix, "time"))
        error["asked"] = asked.strftime("%H:%M") if isinstance(asked, time) else ""
        s[_k(prefix, "error")] = error
    else:
        s[_k(prefix, "dry")] = HeldDryRun(dry=dry, idempotency_key=uuid.uuid4().hex, consent=False)


def _record_consent(box: str, held: str) -> None:
    """The consent belongs to the dry run it was given for (a later replay sends the same consent)."""
    if st.session_state.get(held) is not None:
        st.session_state[held]["consent"] = bool(st.session_state.get(box))


def _pick_slot(
    prefix: str, slot: time, item_id: str, region: str | None, user: str, make: DryRunMaker | None = None
) -> None:
    st.session_state[_k(prefix, "time")] = slot
    _check(prefix, item_id, region, user, make)


def _open_dialog(prefix: str) -> None:
    st.session_state[DIALOG] = prefix


def _close_dialog() -> None:
    st.session_state.pop(DIALOG, None)


def _confirm(prefix: str, region: str | None, user: str) -> None:
    """Spend the dry run's token under its idempotency key: a second call replays the first outcome."""
    s = st.session_state
    held = s.get(_k(prefix, "dry"))
    _close_dialog()
    if held is None:
        return
    dry: DryRun = held["dry"]
    try:
        outcome = service_for(region).confirm(
            user,
            dry.reservation.id,
            token=dry.token,
            idempotency_key=held["idempotency_key"],
            consent=held["consent"],
        )
    except (OmniError, SQLAlchemyError) as exc:
        s[_k(prefix, "error")] = error_of(exc)
    else:
        s.pop(_k(prefix, "error"), None)
        s[_k(prefix, "receipt")] = outcome


def _start_over(prefix: str) -> None:
    for name in ("dry", "error", "receipt", "consent"):
        st.session_state.pop(_k(prefix, name), None)


def _summary(dry: DryRun, item: BookableItem, service: ReservationService) -> None:
    lang = current_lang()
    r = dry.reservation
    booking, other = _booking(r)
    st.markdown(t("reservations.summary.about", lang, booking=booking), help=other)
    st.markdown(price_words(r.quote, r.party_size, lang))
    st.markdown(t("reservations.summary.cancellation", lang, policy=_policy(r, service, lang)))
    for code in dry.unverified:
        st.caption(unverified_words(code, lang))
    deadline = clock_words(
        dry.expires_at.astimezone(service.zone), lang=lang, **venue_clock(service.pack, st.context.timezone, lang)
    )
    st.caption(t("reservations.summary.confirm_before", lang, time=deadline))


def _policy(r: Reservation, service: ReservationService, lang: Lang) -> str:
    """The booking's cancellation policy in words, its times labelled with the venue's city for a reader elsewhere."""
    starts = datetime.combine(r.date, r.time, tzinfo=service.zone)
    clock = venue_clock(service.pack, st.context.timezone, lang)  # the browser's zone
    return policy_words(r.policy, starts, service.clock(), lang=lang, **clock)


def _form_changed(prefix: str, r: Reservation) -> bool:
    s = st.session_state
    return (s.get(_k(prefix, "date")), s.get(_k(prefix, "time")), s.get(_k(prefix, "party"))) != (
        r.date,
        r.time,
        r.party_size,
    ) or ((s.get(_k(prefix, "contact")) or "").strip(), (s.get(_k(prefix, "notes")) or "").strip()) != (
        r.contact,
        r.notes,
    )


def _now_state(r: Reservation, region: str | None) -> Reservation:
    """The reservation as it is now (cancelled from My reservations since the receipt was made, say); the one kept
    when the store cannot be read."""
    from components.frame import request_context  # frame draws the sidebar; imported where a receipt is drawn

    try:
        return reservations_app.current(request_context(region), r.id)
    except (OmniError, SQLAlchemyError):
        return r


def _receipt(outcome: Outcome, service: ReservationService, key: str, *, region: str | None = None) -> None:
    lang = current_lang()
    r = _now_state(outcome.reservation, region)
    booking, other = _booking(r)
    with st.container(border=True, key=key):
        if r.status == "confirmed":
            st.success(t("reservations.receipt.booked", lang), icon=":material/event_available:")
        else:
            st.warning(t("reservations.receipt.not_booked", lang), icon=":material/event_busy:")
        st.markdown(t("reservations.receipt.number", lang, id=r.id))
        st.markdown(t("reservations.receipt.status", lang, status=status_words(r, lang)))
        st.markdown(t("reservations.receipt.what", lang, booking=booking), help=other)
        if r.status == "confirmed":
            st.markdown(price_words(r.quote, r.party_size, lang))
            st.markdown(t("reservations.receipt.to_cancel", lang, policy=_policy(r, service, lang)))
        if outcome.replayed:
            st.caption(t("reservations.receipt.replayed", lang))


def _dialog_body(prefix: str, region: str | None, user: str) -> None:
    lang = current_lang()
    held = st.session_state.get(_k(prefix, "dry"))
    if held is None or st.session_state.get(DIALOG) != prefix:
        st.rerun()  # confirmed (or gone) meanwhile: close and redraw the page
        return
    r = held["dry"].reservation
    booking, other = _booking(r)
    st.markdown(t("reservations.dialog.question", lang, booking=booking), help=other)
    st.markdown(price_words(r.quote, r.party_size, lang))
    yes, no = st.columns(2)
    yes.button(
        t("reservations.dialog.yes", lang), key=_k(prefix, "dialog_yes"), type="primary", width="stretch",
        on_click=_confirm, args=(prefix, region, user),
    )  # fmt: skip
    no.button(t("reservations.dialog.back", lang), key=_k(prefix, "dialog_no"), width="stretch", on_click=_close_dialog)


def _confirm_dialog(prefix: str, region: str | None, user: str) -> None:
    """The confirmation dialog, titled in the page's language."""
    st.dialog(t("reservations.dialog.title"), on_dismiss=_close_dialog)(_dialog_body)(prefix, region, user)


#: the reservation row's field widths (px): "2026/11/30" with the calendar icon, "10:30" with the arrow, "12 − +"
DATE_PX, TIME_PX, PARTY_PX, TEXT_PX = 150, 104, 124, 200


def reserve_controls(
    item_id: str,
    *,
    default_date: date,
    default_time: time,
    party_size: int,
    key_prefix: str,
    region: str | None = None,
    dry_run: DryRunMaker | None = None,
) -> None:
    """The reservation flow for one venue (``region``: its pack; default the sidebar's; ``dry_run``: how the dry
    run is made, default the service's)."""
    s = st.session_state
    p = key_prefix
    service = service_for(region)
    item = item_for(service.pack, item_id)
    if item is None:
        render_refusal({"code": "NOT_BOOKABLE", "field": "item_id", "message": item_id})
        return
    user = dashboard_user()
    slots = _form_defaults(p, item, default_date=default_date, default_time=default_time, party_size=party_size)
    lang = current_lang()
    _render_form_row(p, item, slots, region=region, user=user, dry_run=dry_run, lang=lang)
    _render_form_error(p, item, region=region, user=user, dry_run=dry_run, lang=lang)
    held = s.get(_k(p, "dry"))
    receipt: Outcome | None = s.get(_k(p, "receipt"))
    if held is not None and receipt is None:
        _render_dry_run(p, held, item, service, lang)
    if receipt is not None:
        _receipt(receipt, service, _k(p, "receipt_box"), region=region)
        st.button(t("reservations.form.again", lang), key=_k(p, "again"), on_click=_start_over, args=(p,))
    if s.get(DIALOG) == p and held is not None:
        _confirm_dialog(p, region, user)


def _form_defaults(
    p: str, item: BookableItem, *, default_date: date, default_time: time, party_size: int
) -> list[time]:
    """The form's first values (the date, the first slot from ``default_time``, the party within the venue's
    limit), and a time no longer offered moved to the next slot; returns the venue's slots."""
    s = st.session_state
    slots = item.slots()
    s.setdefault(_k(p, "date"), default_date)
    s.setdefault(_k(p, "time"), item.next_slot(default_time))
    s.setdefault(_k(p, "party"), max(1, min(party_size, item.terms.max_party)))
    if s[_k(p, "time")] not in slots:
        s[_k(p, "time")] = item.next_slot(s[_k(p, "time")])
    return slots


def _render_form_row(
    p: str,
    item: BookableItem,
    slots: list[time],
    *,
    region: str | None,
    user: str,
    dry_run: DryRunMaker | None,
    lang: Lang,
) -> None:
    """The form: date, time, party, contact and notes, and the button that checks the booking (a dry run)."""
    # one wrapping row, each field as wide as what it shows: in a half-day card (a third of the page) columns cut
    # the date to "2026/11/"; a narrow card wraps the row instead of cutting a field
    row = st.container(horizontal=True, vertical_alignment="bottom", gap="small", key=_k(p, "form_row"))
    row.date_input(t("reservations.form.date", lang), key=_k(p, "date"), width=DATE_PX, persist_state="session")
    row.selectbox(
        t("reservations.form.time", lang), slots, key=_k(p, "time"), format_func=lambda v: v.strftime("%H:%M"),
        width=TIME_PX,persist_state="session"
    )  # fmt: skip
    row.number_input(
        t("reservations.form.party", lang), key=_k(p, "party"), min_value=1, max_value=item.terms.max_party, step=1,
        width=PARTY_PX,persist_state="session"
    )  # fmt: skip
    row.text_input(
        t("reservations.form.contact", lang),
        key=_k(p, "contact"),
        max_chars=120,
        width=TEXT_PX,
        persist_state="session",
    )
    row.text_input(
        t("reservations.form.notes", lang), key=_k(p, "notes"), max_chars=500, width=TEXT_PX, persist_state="session"
    )
    row.button(
        t("reservations.form.check", lang), key=_k(p, "check"), icon=":material/event_available:",
        on_click=_check, args=(p, item.id, region, user, dry_run),
    )  # fmt: skip


def _render_form_error(
    p: str, item: BookableItem, *, region: str | None, user: str, dry_run: DryRunMaker | None, lang: Lang
) -> None:
    """The last check's refusal, if any; for a full slot, a button per nearby slot that checks that one."""
    error = st.session_state.get(_k(p, "error"))
    if error is None:
        return
    render_refusal(error, item)
    suggestions = [time.fromisoformat(t) for t in (error.get("details") or {}).get("suggestions", [])]
    if error["code"] == "SLOT_FULL" and suggestions:
        st.markdown(t("reservations.form.nearby", lang))
        cols = st.columns(len(suggestions))
        for col, slot in zip(cols, suggestions, strict=True):
            col.button(
                slot.strftime("%H:%M"), key=_k(p, f"slot_{slot:%H%M}"),
                on_click=_pick_slot, args=(p, slot, item.id, region, user, dry_run),
            )  # fmt: skip


def _render_dry_run(p: str, held: HeldDryRun, item: BookableItem, service: ReservationService, lang: Lang) -> None:
    """The checked booking: its summary, then (while the form still says the same) the consent and the button
    that opens the confirmation; a form changed since the check says so instead."""
    dry: DryRun = held["dry"]
    with st.container(border=True, key=_k(p, "dry_box")):
        _summary(dry, item, service)
        if _form_changed(p, dry.reservation):
            st.info(t("reservations.form.changed", lang))
        else:
            booking, _other = _booking(dry.reservation)
            st.checkbox(
                t("reservations.form.consent", lang, booking=booking), key=_k(p, "consent"),
                on_change=_record_consent, args=(_k(p, "consent"), _k(p, "dry")),persist_state="session"
            )  # fmt: skip
            st.button(
                t("reservations.form.book", lang), key=_k(p, "book"), type="primary",
                disabled=not held["consent"], on_click=_open_dialog, args=(p,),
            )  # fmt: skip


# ---- my_reservations ---------------------------------------------------------------------------------------------
def _cancel_check(prefix: str, rid: str, item_id: str, user: str) -> None:
    s = st.session_state
    s.pop(_k(prefix, f"error_{rid}"), None)
    s[_k(prefix, f"consent_{rid}")] = False
    try:
        dry = _service_of_item(item_id).cancel_dry_run(user, rid)
    except (OmniError, SQLAlchemyError) as exc:
        s[_k(prefix, f"error_{rid}")] = error_of(exc)
    else:
        s[_k(prefix, f"dry_{rid}")] = HeldDryRun(dry=dry, idempotency_key=uuid.uuid4().hex, consent=False)


def _cancel_keep(prefix: str, rid: str) -> None:
    for name in (f"dry_{rid}", f"error_{rid}", f"consent_{rid}"):
        st.session_state.pop(_k(prefix, name), None)


def _cancel_confirm(prefix: str, rid: str, item_id: str, user: str) -> None:
    s = st.session_state
    held = s.get(_k(prefix, f"dry_{rid}"))
    if held is None:
        return
    try:
        outcome = _service_of_item(item_id).cancel(
            user,
            rid,
            token=held["dry"].token,
            idempotency_key=held["idempotency_key"],
            consent=held["consent"],
        )
    except (OmniError, SQLAlchemyError) as exc:
        s[_k(prefix, f"error_{rid}")] = error_of(exc)
    else:
        s.pop(_k(prefix, f"dry_{rid}"), None)
        s[_k(prefix, f"done_{rid}")] = {"outcome": outcome, "fee": held["dry"].fee}


def _reservation_row(prefix: str, r: Reservation, user: str) -> None:
    s = st.session_state
    lang = current_lang()
    booking, other = _booking(r)
    with st.container(border=True, key=_k(prefix, f"row_{r.id}")):
        st.markdown(t("reservations.mine.booking", lang, booking=booking), help=other)
        st.markdown(t("reservations.receipt.status", lang, status=status_words(r, lang)))
        st.caption(t("reservations.mine.number", lang, id=r.id))
        done = s.get(_k(prefix, f"done_{r.id}"))
        if r.status == "cancelled" and done is not None:
            st.caption(fee_words(done["fee"], r, lang))
        error = s.get(_k(prefix, f"error_{r.id}"))
        if error is not None:
            render_refusal(error)
        if r.status != "confirmed":
            return
        held = s.get(_k(prefix, f"dry_{r.id}"))
        if held is None:
            st.button(
                t("reservations.mine.cancel", lang), key=_k(prefix, f"cancel_{r.id}"), icon=":material/event_busy:",
                on_click=_cancel_check, args=(prefix, r.id, r.item_id, user),
            )  # fmt: skip
            return
        dry: DryRun = held["dry"]
        owner = _service_of_item(r.item_id)
        st.markdown(_policy(r, owner, lang))
        st.markdown(fee_words(dry.fee, r, lang))
        st.checkbox(
            t("reservations.mine.consent", lang, booking=booking), key=_k(prefix, f"consent_{r.id}"),
            on_change=_record_consent, args=(_k(prefix, f"consent_{r.id}"), _k(prefix, f"dry_{r.id}")),persist_state="session"
        )  # fmt: skip
        a, b = st.columns(2)
        a.button(
            t("reservations.mine.confirm_cancel", lang), key=_k(prefix, f"cancel_confirm_{r.id}"), type="primary",
            disabled=not held["consent"], on_click=_cancel_confirm,
            args=(prefix, r.id, r.item_id, user),
        )  # fmt: skip
        b.button(
            t("reservations.mine.keep", lang), key=_k(prefix, f"cancel_keep_{r.id}"), on_click=_cancel_keep,
            args=(prefix, r.id),
        )  # fmt: skip


def my_reservations(key_prefix: str) -> None:
    """The dashboard user's reservations (only theirs: the service is asked for this user alone)."""
    user = dashboard_user()
    try:
        mine = service_for().reservations_of(user)
    except SQLAlchemyError as exc:
        render_refusal(error_of(exc))
        return
    shown = [r for r in mine if r.status in ("confirmed", "cancelled")]
    others = [r for r in mine if r.status not in ("confirmed", "cancelled")]
    lang = current_lang()
    if not shown:
        st.caption(t("reservations.mine.none", lang))
    for r in shown:
        _reservation_row(key_prefix, r, user)
    if others:
        with st.container(key=_k(key_prefix, "unconfirmed")):
            st.caption(t("reservations.mine.unconfirmed", lang, n=len(others)))
            for r in others:
                booking, _other = _booking(r)
                st.caption(t("reservations.mine.unconfirmed_row", lang, booking=booking, status=status_words(r, lang)))


# ---- offers on a page --------------------------------------------------------------------------------------------
def _toggle_offer(prefix: str, key: str) -> None:
    s = st.session_state
    s[_k(prefix, "open")] = None if s.get(_k(prefix, "open")) == key else key


def render_offers(offers: Sequence[Offer], *, key_prefix: str, party_size: int, region: str | None = None) -> None:
    """One "Reserve" button per bookable stop; the chosen one opens reserve_controls below it."""
    lang = current_lang()
    if not offers:
        st.caption(t("reservations.offer.none", lang))
        return
    opened = st.session_state.get(_k(key_prefix, "open"))
    for offer in offers:
        left, right = st.columns([4, 1], vertical_alignment="center")
        left.markdown(offer.label)
        right.button(
            t("reservations.offer.open", lang), key=_k(key_prefix, f"open_{offer.key}"), icon=":material/event:",
            width="stretch",
            type="primary" if opened == offer.key else "secondary", on_click=_toggle_offer,
            args=(key_prefix, offer.key),
        )  # fmt: skip
        if opened == offer.key:
            with st.container(border=True, key=_k(key_prefix, f"panel_{offer.key}")):
                if offer.moved_from is not None:
                    st.caption(note_words(offer, lang))
                reserve_controls(
                    offer.item_id,
                    default_date=offer.default_date,
                    default_time=offer.default_time,
                    party_size=party_size,
                    key_prefix=_k(key_prefix, offer.key),
                    region=region,
                )

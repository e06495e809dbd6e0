# Runs moto's server with the patches described on motoLauncher in
# emulator.go. Written against moto 5.2.1; the SQS patches are applied to
# moto 5 only (other versions run unpatched, with a warning).
import functools
import hashlib
import sys
import threading
import time
from copy import deepcopy

import moto
from moto.dynamodb.models import DynamoDBBackend

# 1. DynamoDB: serialise the backend's operations, so conditional writes
# and transactions are atomic as on AWS.
_dynamo_lock = threading.RLock()


def _serialised(fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        with _dynamo_lock:
            return fn(*args, **kwargs)

    return call


# 1b. DynamoDB transactions without a table copy. moto deep-copies every
# table a transaction touches, for each of its items, as the rollback
# state: a one-item TransactWriteItems fell from ~350/s to 2/s once the
# table held 1,500 items, and behind the lock above every DynamoDB call
# waited for it. Check every condition first (nothing written), then write;
# only the items written are saved, to be restored if a write fails.
def _transact_write_items(self, transact_items):
    from moto.dynamodb.comparisons import get_filter_expression
    from moto.dynamodb.exceptions import (
        ConditionalCheckFailed,
        MockValidationException,
        MultipleTransactionsException,
        TooManyTransactionsException,
        TransactionCanceledException,
        TransactWriteSingleOpException,
    )

    if len(transact_items) > 100:
        raise TooManyTransactionsException()
    targets, errors, writes = set(), [], []
    for item in transact_items:
        if len(item) > 1:
            raise TransactWriteSingleOpException
        op_type, op = next(iter(item.items()))
        old = None
        try:
            if op_type not in {"ConditionCheck", "Put", "Delete", "Update"}:
                raise ValueError("Unsupported transaction operation")
            table_name = op["TableName"]
            if op_type == "Put":
                table = self.get_table(table_name)
                key = {table.hash_key_attr: op["Item"][table.hash_key_attr]}
                if table.range_key_attr is not None:
                    key[table.range_key_attr] = op["Item"][table.range_key_attr]
            else:
                key = op["Key"]
            target = (str(table_name), str(dict(sorted(key.items()))))
            if target in targets:
                raise MultipleTransactionsException()
            targets.add(target)
            current = self.get_item(table_name, key)
            cond = op.get("ConditionExpression")
            names, values = op.get("ExpressionAttributeNames"), op.get("ExpressionAttributeValues")
            if cond is not None and not get_filter_expression(cond, names, values).expr(current):
                if op.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD" and current:
                    old = current.to_json()["Attributes"]
                raise ConditionalCheckFailed(item=old)
            if op_type != "ConditionCheck":
                writes.append((op_type, op, table_name, key, deepcopy(current)))
            errors.append((None, None, None))
        except (MultipleTransactionsException, MockValidationException):
            raise
        except ConditionalCheckFailed as e:
            errors.append(("ConditionalCheckFailed", str(e.message), old))
        except Exception as e:  # noqa: E722 as moto reports them
            errors.append((type(e).__name__, str(e), old))
    if any(code is not None for code, _, _ in errors):
        raise TransactionCanceledException(errors)
    done = []
    try:
        for op_type, op, table_name, key, saved in writes:
            names, values = op.get("ExpressionAttributeNames"), op.get("ExpressionAttributeValues")
            done.append((table_name, key, saved))
            if op_type == "Put":
                self.put_item(table_name, op["Item"], expression_attribute_names=names, expression_attribute_values=values)
            elif op_type == "Delete":
                self.delete_item(table_name, key, expression_attribute_names=names, expression_attribute_values=values)
            else:
                self.update_item(table_name, key, update_expression=op["UpdateExpression"],
                                 expression_attribute_names=names, expression_attribute_values=values)
    except Exception:
        for table_name, key, saved in reversed(done):
            table = self.get_table(table_name)
            hash_value, range_value = self.get_keys_value(table, key)
            if saved is None:
                table.delete_item(hash_value, range_value)
            elif range_value is not None:
                table.items[hash_value][range_value] = saved
            else:
                table.items[hash_value] = saved
        raise


if moto.__version__.startswith("5."):
    DynamoDBBackend.transact_write_items = _transact_write_items

for _name, _fn in list(vars(DynamoDBBackend).items()):
    if callable(_fn) and not _name.startswith("_"):
        setattr(DynamoDBBackend, _name, _serialised(_fn))


def _patch_sqs():
    from moto.core.utils import unix_time_millis
    from moto.moto_api._internal import mock_random as random
    from moto.sqs import models as m
    from moto.sqs.exceptions import InvalidParameterValue, MissingParameter, ReceiptHandleIsInvalid

    Queue, SQSBackend, Message = m.Queue, m.SQSBackend, m.Message
    orig_receive = SQSBackend.receive_message
    orig_add = Queue.add_message
    orig_delete = Queue.delete_message
    orig_change = SQSBackend.change_message_visibility
    orig_purge = SQSBackend.purge_queue

    # 2a. Queue depth scans. moto computes the Approximate* counts with one
    # clock read per message and builds the whole attribute map (three such
    # scans) where only a fixed setting is needed: on every SendMessage
    # (ContentBasedDeduplication, several times) and for every message a
    # ReceiveMessage returns (the retention period). Read the settings
    # directly, and read the clock once per count.
    def messages(self):
        now = unix_time_millis()
        return [x for x in self._messages if now > x.visible_at and not now < x.delayed_until]

    def delayed(self):
        now = unix_time_millis()
        return sum(1 for x in self._messages if now < x.delayed_until)

    def not_visible(self):
        now = unix_time_millis()
        return sum(1 for x in self._messages if not now > x.visible_at)

    Queue.messages = property(messages)
    Queue.approximate_number_of_messages_delayed = property(delayed)
    Queue.approximate_number_of_messages_not_visible = property(not_visible)
    Queue.approximate_number_of_messages = property(lambda self: len(self.messages))

    def is_message_valid_based_on_retention_period(self, queue_name, message):
        queue = self.get_queue(queue_name)
        return message.sent_timestamp + queue.message_retention_period * 1000 > unix_time_millis()

    SQSBackend.is_message_valid_based_on_retention_period = is_message_valid_based_on_retention_period

    def content_dedup(queue):
        return bool(queue.fifo_queue and queue.content_based_deduplication)

    def _validate_message(self, queue, message_body, delay_seconds, deduplication_id=None, group_id=None, validate_group_id=True):
        if queue.fifo_queue:
            if not content_dedup(queue) and not group_id:
                raise MissingParameter("MessageGroupId")
            if not content_dedup(queue) and group_id and not deduplication_id:
                raise InvalidParameterValue(
                    "The queue should either have ContentBasedDeduplication enabled or "
                    "MessageDeduplicationId provided explicitly"
                )
            if delay_seconds > 0:
                raise InvalidParameterValue(
                    f"Value {delay_seconds} for parameter DelaySeconds is invalid. Reason: "
                    "The request include parameter that is not valid for this queue type."
                )
        if len(message_body) > queue.maximum_message_size:
            raise InvalidParameterValue(
                f"One or more parameters are invalid. Reason: Message must be shorter than {queue.maximum_message_size} bytes."
            )
        if group_id is None and queue.fifo_queue:
            raise MissingParameter("MessageGroupId")

    SQSBackend._validate_message = _validate_message

    # 2b. SequenceNumber: moto draws 20 random digits; SQS's increase
    # within a group. A per-process counter (at least the clock in ns)
    # increases across all queues, which satisfies that.
    seq_lock = threading.Lock()
    seq_last = [0]

    def next_sequence_number():
        with seq_lock:
            seq_last[0] = max(seq_last[0] + 1, time.time_ns())
            return "%020d" % seq_last[0]

    def send_message(self, queue_name, message_body, message_attributes=None, delay_seconds=None,
                     deduplication_id=None, group_id=None, system_attributes=None, validate_group_id=True):
        queue = self.get_queue(queue_name)
        self._validate_message(queue, message_body=message_body, delay_seconds=int(delay_seconds or 0),
                               deduplication_id=deduplication_id, group_id=group_id, validate_group_id=validate_group_id)
        delay_seconds = int(delay_seconds) if delay_seconds is not None else queue.delay_seconds
        message = Message(str(random.uuid4()), message_body, system_attributes)
        if content_dedup(queue):
            message.deduplication_id = hashlib.sha256(message_body.encode("utf-8")).hexdigest()
        if deduplication_id is not None:
            message.deduplication_id = deduplication_id
        if queue.fifo_queue:
            message.sequence_number = next_sequence_number()
        if group_id is not None:
            message.group_id = group_id
        if message_attributes:
            message.message_attributes = message_attributes
        if delay_seconds > m.MAXIMUM_MESSAGE_DELAY:
            raise InvalidParameterValue(
                f"Value {delay_seconds} for parameter DelaySeconds is invalid. "
                "Reason: DelaySeconds must be >= 0 and <= 900."
            )
        message.mark_sent(delay_seconds=delay_seconds)
        queue.add_message(message)
        return message

    SQSBackend.send_message = send_message

    # 2c. The FIFO index. moto keeps one list per queue and, on every
    # receive, walks all of it; deduplication, delete and visibility
    # changes walk it too. Each FIFO queue gets, guarded by the queue's own
    # lock (its _messages_lock condition):
    #   groups:   group id -> its messages in send order;
    #   inflight: group id -> its messages that are invisible after a
    #             receive or a visibility change;
    #   dedup:    deduplication id -> messages in the queue that carry it;
    #   handles:  every receipt handle a message got -> the message.
    class Fifo:
        __slots__ = ("groups", "inflight", "dedup", "handles", "added")

        def __init__(self):
            self.groups, self.inflight, self.dedup, self.handles = {}, {}, {}, {}
            self.added = 0  # messages added so far: orders group heads

    def state(queue):
        st = queue.__dict__.get("_zero_fifo")
        if st is None:
            st = queue._zero_fifo = Fifo()
        return st

    def forget(queue, st, msg):
        """Removes msg from the queue and the index (lock held)."""
        try:
            queue._messages.remove(msg)
        except ValueError:
            pass
        group = st.groups.get(msg.group_id)
        if group is not None:
            try:
                group.remove(msg)
            except ValueError:
                pass
            if not group:
                del st.groups[msg.group_id]
        flight = st.inflight.get(msg.group_id)
        if flight is not None:
            flight.discard(msg)
            if not flight:
                del st.inflight[msg.group_id]
        same = st.dedup.get(msg.deduplication_id)
        if same is not None:
            try:
                same.remove(msg)
            except ValueError:
                pass
            if not same:
                del st.dedup[msg.deduplication_id]
        for h in msg.all_receipt_handles:
            st.handles.pop(h, None)
        queue._pending_messages.discard(msg)

    def set_inflight(st, queue, msg, now):
        if now > msg.visible_at:
            flight = st.inflight.get(msg.group_id)
            if flight is not None:
                flight.discard(msg)
                if not flight:
                    del st.inflight[msg.group_id]
            queue._pending_messages.discard(msg)
        else:
            st.inflight.setdefault(msg.group_id, set()).add(msg)
            queue._pending_messages.add(msg)

    # Deduplication (moto's rule: a message whose id matches one still in
    # the queue and sent less than 5 minutes before is dropped) is checked
    # under the queue lock, so two concurrent sends cannot both pass.
    def add_message(self, message):
        if not self.fifo_queue:
            return orig_add(self, message)
        with self._messages_lock:
            st = state(self)
            if content_dedup(self) or message.deduplication_id:
                for other in st.dedup.get(message.deduplication_id, ()):
                    if (message.sent_timestamp - other.sent_timestamp) / 1000 < m.DEDUPLICATION_TIME_IN_SECONDS:
                        return
            st.added += 1
            message._zero_seq = st.added
            self._messages.append(message)
            st.groups.setdefault(message.group_id, []).append(message)
            st.dedup.setdefault(message.deduplication_id, []).append(message)
            self._messages_lock.notify_all()
        if self.lambda_event_source_mappings:
            # moto's own Lambda triggers (unused by ZERO): as moto does.
            backend = m.sqs_backends[self.account_id][self.region]
            from moto.awslambda.utils import get_backend

            for arn, esm in self.lambda_event_source_mappings.items():
                if not esm.enabled:
                    continue
                batch = backend.receive_message(self.name, esm.batch_size, self.receive_message_wait_time_seconds, self.visibility_timeout)
                if get_backend(self.account_id, self.region).send_sqs_batch(arn, batch, self.queue_arn):
                    for x in batch:
                        backend.delete_message(self.name, x.receipt_handle)
                else:
                    for x in batch:
                        backend.change_message_visibility(self.name, x.receipt_handle, visibility_timeout=0)

    Queue.add_message = add_message

    # 2d. FIFO receive. A group is served only when none of its messages
    # is in flight, and then from its oldest message on, so a group's
    # messages always come out in send order: also several that were in
    # flight together and became visible together (moto returned those
    # newest first), and under concurrent receives (moto decided which
    # groups were busy once per call, outside any lock). The work is one
    # look at each group's in-flight set and head, not a walk of every
    # message. A long poll waits on the queue's condition (notified by
    # sends, deletes and visibility changes) or until the next in-flight
    # message's timeout ends, instead of moto's busy loop when only busy
    # groups have visible messages.
    def take(queue, count, visibility_timeout):
        st = state(queue)
        now = unix_time_millis()
        redrive = queue.redrive_policy if queue.dead_letter_queue is not None else None
        max_receives = redrive["maxReceiveCount"] if redrive else None
        retention_ms = queue.message_retention_period * 1000
        taken, to_dlq, wake, ready = [], [], None, []
        for gid, group in st.groups.items():
            flight = st.inflight.get(gid)
            if flight:
                for x in [x for x in flight if now > x.visible_at]:
                    flight.discard(x)
                    queue._pending_messages.discard(x)
                if flight:
                    soonest = min(x.visible_at for x in flight)
                    wake = soonest if wake is None else min(wake, soonest)
                    continue
                del st.inflight[gid]
            ready.append((group[0]._zero_seq, gid))
        # Serve the ready groups by the age of their oldest message, so
        # messages go out in arrival order across groups, as moto's walk
        # of the whole queue did: a busy group cannot starve the others.
        ready.sort()
        for _, gid in ready:
            if len(taken) >= count:
                break
            # Nothing of the group in flight: take from its oldest message
            # on, as many as the call allows (SQS returns as many of one
            # group as it can, in order).
            group = st.groups.get(gid, ())
            i = 0
            while i < len(group) and len(taken) < count:
                x = group[i]
                if now < x.delayed_until:
                    wake = x.delayed_until if wake is None else min(wake, x.delayed_until)
                    break
                if x.sent_timestamp + retention_ms <= now:
                    forget(queue, st, x)  # past retention: SQS drops it
                    continue
                if max_receives is not None and x.approximate_receive_count >= max_receives:
                    forget(queue, st, x)
                    to_dlq.append(x)
                    continue
                x.mark_received(visibility_timeout=visibility_timeout)
                st.handles[x.receipt_handle] = x
                set_inflight(st, queue, x, now)
                taken.append(x)
                i += 1
        return taken, to_dlq, wake

    def receive_message(self, queue_name, count, wait_seconds_timeout, visibility_timeout, message_attribute_names=None):
        queue = self.get_queue(queue_name)
        if not queue.fifo_queue:
            return orig_receive(self, queue_name, count, wait_seconds_timeout, visibility_timeout, message_attribute_names)
        names = message_attribute_names or []
        deadline = time.monotonic() + (wait_seconds_timeout or 0)
        cond = queue._messages_lock
        while True:
            result = []
            with cond:
                taken, to_dlq, wake = take(queue, count, visibility_timeout)
                for x in taken:
                    # A copy, as moto does, so that filtering attributes
                    # leaves the stored message alone.
                    c = deepcopy(x)
                    m._filter_message_attributes(c, names)
                    result.append(c)
                remaining = deadline - time.monotonic()
                if not taken and not to_dlq and remaining > 0:
                    pause = remaining
                    if wake is not None:
                        pause = min(pause, max((wake - unix_time_millis()) / 1000, 0) + 0.005)
                    cond.wait(min(pause, 1.0))
                    continue
            for x in to_dlq:
                queue.dead_letter_queue.add_message(x)
            if result or time.monotonic() >= deadline:
                return result

    SQSBackend.receive_message = receive_message

    # 2e. Delete and visibility changes find the message by receipt handle
    # in the index (moto walked every message and each one's old handles),
    # and take the queue lock so they cannot interleave with a receive.
    def delete_message(self, receipt_handle):
        if not self.fifo_queue:
            return orig_delete(self, receipt_handle)
        with self._messages_lock:
            if receipt_handle in self.deleted_messages:
                return
            st = state(self)
            msg = st.handles.get(receipt_handle)
            if msg is None:
                raise ReceiptHandleIsInvalid()
            forget(self, st, msg)
            self.deleted_messages.update(msg.all_receipt_handles)
            self._messages_lock.notify_all()

    Queue.delete_message = delete_message

    def change_message_visibility(self, queue_name, receipt_handle, visibility_timeout):
        queue = self.get_queue(queue_name)
        if not queue.fifo_queue:
            return orig_change(self, queue_name, receipt_handle, visibility_timeout)
        with queue._messages_lock:
            st = state(queue)
            msg = st.handles.get(receipt_handle)
            if msg is None:
                raise ReceiptHandleIsInvalid
            given = unix_time_millis() + int(visibility_timeout) * 1000
            if given - msg.sent_timestamp > 43200 * 1000:
                raise InvalidParameterValue(
                    f"Value {visibility_timeout} for parameter VisibilityTimeout is invalid. Reason: Total "
                    "VisibilityTimeout for the message is beyond the limit [43200 seconds]"
                )
            msg.change_visibility(visibility_timeout)
            set_inflight(st, queue, msg, unix_time_millis())
            queue._messages_lock.notify_all()

    SQSBackend.change_message_visibility = change_message_visibility

    def purge_queue(self, queue_name):
        queue = self.get_queue(queue_name)
        with queue._messages_lock:
            orig_purge(self, queue_name)
            queue._zero_fifo = Fifo()

    SQSBackend.purge_queue = purge_queue


def _patch_signature_query():
    """IAM enforcement (see emulator.go, Start): moto checks a signature
    against the request's URL as its HTTP server decoded it, so a signed
    query value holding a reserved character (ListObjectsV2's
    prefix=a%2Fb) never matched. Re-encode the query as SigV4 canonicalises
    it (RFC 3986 unreserved characters kept) before the check."""
    from urllib.parse import quote, unquote, urlsplit, urlunsplit

    import moto.iam.access_control as access_control

    orig = access_control.IAMRequestBase._create_aws_request

    def create_aws_request(self):
        request = orig(self)
        parts = urlsplit(request.url)
        if parts.query:
            pairs = []
            for pair in parts.query.split("&"):
                key, sep, value = pair.partition("=")
                pairs.append(quote(unquote(key), safe="-_.~") + sep + quote(unquote(value), safe="-_.~"))
            request.url = urlunsplit(parts._replace(query="&".join(pairs)))
        if self._method in ("GET", "DELETE", "HEAD") and not self._body:
            # moto passes a body-less request's parsed query as its data,
            # which botocore then hashes as a form body: a REST call that
            # signs no payload hash header (Scheduler's GetSchedule and
            # DeleteSchedule ?groupName=) never matched. Its body is empty.
            request.data = b""
        return request

    access_control.IAMRequestBase._create_aws_request = create_aws_request


def _patch_scheduler():
    """EventBridge Scheduler: UpdateSchedule replaces every field of the
    schedule, ActionAfterCompletion too (unset: NONE), as on AWS. moto kept
    the create's, so a one-shot made recurring still deleted itself after
    its next fire and a recurring one made one-shot never did."""
    from moto.scheduler.responses import EventBridgeSchedulerResponse

    orig = EventBridgeSchedulerResponse.update_schedule

    def update_schedule(self):
        out = orig(self)
        name = self.uri.split("?")[0].split("/")[-1]
        schedule = self.scheduler_backend.get_schedule(self._get_param("GroupName"), name)
        schedule.action_after_completion = self._get_param("ActionAfterCompletion")
        return out

    EventBridgeSchedulerResponse.update_schedule = update_schedule


if moto.__version__.split(".")[0] == "5":
    _patch_sqs()
    _patch_signature_query()
    _patch_scheduler()
else:
    print(f"moto {moto.__version__}: FIFO queue patches not applied (written for moto 5)", file=sys.stderr)

from moto.server import main  # noqa: E402

main(sys.argv[1:])
